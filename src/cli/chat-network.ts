// `/network` in the chat: what sandboxed commands may reach (sandbox.network), the person's grants
// (this session's, and this project's, saved in $HARNESS_HOME/network-grants.json), answers that
// refused, and the latest connections with the command that opened each; `add`, `save` and
// `remove` change the grants (docs/network.md). Its own file: the chat's other controls are in
// chat-controls.ts and chat-worktree.ts, which this extends (each feature's commands a class of
// their own, the chat building the last: cli-chat.ts).
import { grantsFile, parseGrant } from "../permissions/network-grants.ts";
import type { NetworkRecord, SandboxNetwork } from "../permissions/sandbox-network.ts";
import type { NetworkAccess } from "../sandbox/network-access.ts";
import type { NetworkRule } from "../sandbox/network-rules.ts";
import { originText } from "../sandbox/relay-origin.ts";
import { WorktreeChatControls } from "./chat-worktree.ts";

/** Connections /network shows, the latest. */
const SHOWN_CONNECTIONS = 15;
/** Longest command shown for a connection (its first line, cut). */
const SHOWN_COMMAND_CHARS = 70;

const USAGE = "/network [add|save|remove host[:port]]";

/** The chat's controls with /network. */
export class NetworkChatControls extends WorktreeChatControls {
  network(args: string): string {
    return networkCommand(this.options.session.network, args);
  }
}

/** What /network says, after doing what `args` asks. Throws (with the usage) on a bad request. */
export function networkCommand(network: SandboxNetwork | undefined, args: string): string {
  if (!network) return "commands run without the Linux sandbox here, so no network list holds them (docs/network.md)";
  const [verb, entry, ...extra] = args.split(/\s+/).filter(Boolean);
  if (verb === undefined) return describe(network).join("\n");
  if (!["add", "save", "remove"].includes(verb) || entry === undefined || extra.length > 0)
    throw new Error(`${USAGE}: add allows for this session, save always for this project, remove takes either back`);
  if (network.mode !== "list")
    throw new Error(
      `the network of sandboxed commands is ${network.mode}: grants apply when sandbox.network is a list (docs/network.md)`,
    );
  const rule = parseGrant(entry);
  if (typeof rule === "string") throw new Error(rule);
  if (verb === "remove")
    return network.revoke(rule)
      ? `removed ${rule.text}`
      : `${rule.text} is not among your grants (/network lists them)`;
  network.grant(rule, verb === "add" ? "session" : "project");
  const place = network.grantsPlace;
  return verb === "add"
    ? `sandboxed commands may reach ${rule.text} for the rest of this session`
    : `sandboxed commands may reach ${rule.text} in this project from now on (saved in ${place ? grantsFile(place.harnessHome) : "no file"})`;
}

function describe(network: SandboxNetwork): string[] {
  const access = network.settingsAccess;
  if (access === false)
    return ["sandboxed commands reach no network (sandbox.network is off; a list allows hosts: docs/network.md)"];
  if (access === true)
    return ["sandboxed commands reach the whole network (sandbox.network is on, or --allow-network)"];
  const place = network.grantsPlace;
  const lines = [
    ...settingsLines(access),
    `allowed for this session: ${texts(network.sessionGrants)}`,
    `allowed always in this project: ${texts(network.projectGrants)}${place ? ` (${grantsFile(place.harnessHome)})` : ""}`,
  ];
  if (network.refused.size > 0) lines.push(`refused by your answer this session: ${[...network.refused].join(", ")}`);
  const recent = network.records.slice(-SHOWN_CONNECTIONS);
  lines.push(recent.length === 0 ? "no connections yet" : `latest connections (${network.records.length} kept):`);
  lines.push(...recent.map(connectionLine));
  lines.push(`${USAGE}: add allows for this session, save always for this project, remove takes either back`);
  return lines;
}

function settingsLines(access: NetworkAccess): string[] {
  const lines = [
    access.allowed === "on"
      ? "sandbox.network allows every public host, through the session's proxy"
      : `sandbox.network allows: ${texts(access.allowed)}`,
  ];
  for (const { file, rules } of access.narrowedBy) lines.push(`  and only what ${file} lists: ${texts(rules)}`);
  if (access.denied.length > 0) lines.push(`  never: ${texts(access.denied)} (deniedDomains)`);
  return lines;
}

function connectionLine(record: NetworkRecord): string {
  const time = record.time.slice(11, 19);
  const verdict = record.allowed ? "allowed" : "refused";
  const who = originText(record);
  const command = who ? `  ${cut(who)}` : "";
  return `  ${time} ${verdict} ${record.host}:${record.port}${command}${record.why ? ` (${record.why})` : ""}`;
}

function texts(rules: readonly NetworkRule[]): string {
  return rules.length === 0 ? "none" : rules.map((rule) => rule.text).join(", ");
}

function cut(text: string): string {
  const [first, ...rest] = text.trim().split("\n");
  const line = rest.length > 0 ? `${first} …` : first;
  return line.length > SHOWN_COMMAND_CHARS ? `${line.slice(0, SHOWN_COMMAND_CHARS - 1)}…` : line;
}
