// A worker's policy for queued task environments (batch/environment/environment-policy.ts), on
// real folders: images by --allow-images patterns, a rootfs by real path inside --allow-rootfs
// (the folder itself included), not a file nor a missing path; and the --allow-rootfs folders
// themselves apart from where jobs write.
import assert from "node:assert/strict";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { allowedRootfsFolders, checkEnvironment } from "../../src/batch/environment/environment-policy.ts";
import { tempDir } from "../support/helpers.ts";

const judge = (folder: string) => ({ folder });

test("images match --allow-images patterns; a rootfs is taken by its real path inside an allowed folder", () => {
  const dir = tempDir();
  const envs = join(dir, "envs");
  mkdirSync(join(envs, "py311"), { recursive: true });
  writeFileSync(join(envs, "file"), "");
  symlinkSync(join(envs, "py311"), join(dir, "link-in"));
  const allow = { rootfs: [envs], images: ["localhost/*", "docker.io/swebench/sweb.eval.*"] };
  const refusal = (environment: object) =>
    (checkEnvironment(environment, allow, judge) as { refused?: string }).refused ?? "taken";
  assert.equal(refusal({ image: "localhost/harness-test:1" }), "taken");
  assert.equal(refusal({ image: "docker.io/swebench/sweb.eval.x86_64.astropy_1776_astropy-12907" }), "taken");
  assert.match(
    refusal({ image: "docker.io/library/debian" }),
    /is not on this worker's --allow-images \(allowed: localhost\/\*, /,
  );
  // `.` in a pattern is a dot, not any character.
  assert.match(refusal({ image: "docker.io/swebench/sweb-eval-x" }), /not on this worker's --allow-images/);
  assert.deepEqual(checkEnvironment({ rootfs: envs }, allow, judge), { environment: { rootfs: envs } });
  // A link from outside into the allowed folder is taken as where it leads.
  assert.deepEqual(checkEnvironment({ rootfs: join(dir, "link-in"), workdir: "/w" }, allow, judge), {
    environment: { rootfs: join(envs, "py311"), workdir: "/w" },
  });
  assert.match(refusal({ rootfs: join(envs, "file") }), /is not a folder/);
  assert.match(refusal({ rootfs: join(envs, "missing") }), /does not exist on this worker/);
  assert.match(refusal({ rootfs: "envs/py311" }), /is not an absolute path/);
  assert.match(
    (checkEnvironment({ rootfs: envs }, { rootfs: [], images: [] }, judge) as { refused: string }).refused,
    /it was started without --allow-rootfs/,
  );
  assert.match(
    (checkEnvironment({ image: "localhost/x" }, { rootfs: [], images: [] }, judge) as { refused: string }).refused,
    /takes no images \(it was started without --allow-images\)/,
  );
});

test("--allow-rootfs folders are kept apart from --workdir and --allow-dir, either way round", () => {
  const dir = tempDir();
  const envs = join(dir, "envs");
  mkdirSync(envs);
  assert.deepEqual(allowedRootfsFolders([envs], [join(dir, "work")], judge), { folders: [envs] });
  for (const writable of [join(envs, "work"), dir, envs])
    assert.match(
      (allowedRootfsFolders([envs], [writable], judge) as { refused: string }).refused,
      /overlaps .*, where jobs write/,
    );
  assert.match((allowedRootfsFolders(["/"], [], judge) as { refused: string }).refused, /is the host's \//);
});
