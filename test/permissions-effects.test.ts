// Tools declare what they touch (Tool.effects), and the permission check judges that, never the
// name of an argument. From the attacker's side: a library tool, defined the way a library user
// defines one, whose file argument is not called `path`, is pointed at a credential and at a
// system file through the real loop, the real approver and the permissions a CLI run sets up;
// and a file tool that declares nothing is refused in every mode. The canaries live in a HOME
// under /var/tmp, outside the temp folder the policy lets file tools use.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, afterEach, test } from "node:test";
import { z } from "zod";
import { defineTool, runAgent, type AgentEvent, type Tool, type ToolKind } from "../src/index.ts";
import { createApprover } from "../src/permissions/approver.ts";
import type { ApprovalMode } from "../src/permissions/policy.ts";
import { setupPermissions } from "../src/permissions/setup-permissions.ts";
import { startFakeLLM, type FakeLLM } from "./fake-llm/server.ts";
import { fakeOpenAIProvider, tempDir } from "./helpers.ts";

const CANARY = "CANARY-private-key-4f1c";
const home = mkdtempSync("/var/tmp/harness-effects-home-");
mkdirSync(join(home, ".ssh"));
writeFileSync(join(home, ".ssh", "id_rsa"), `${CANARY}\n`);
after(() => rmSync(home, { recursive: true, force: true }));

/** Argument names a tool from elsewhere might use for its file; none of them is `path`. */
const ARGUMENT_NAMES = ["file_path", "filename", "target", "p"];

const servers: FakeLLM[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    assert.deepEqual(server.errors, []);
    await server.close();
  }
});

/** A library tool that really reads or writes the file its `name` argument names; `declare` says whether it declares so. */
function libraryTool(
  kind: Exclude<ToolKind, "execute">,
  name: string,
  declare: boolean,
): { tool: Tool; ran: string[] } {
  const ran: string[] = [];
  const tool = defineTool({
    name: `my_${kind}`,
    description: `${kind} a file`,
    kind,
    input: z.object({ [name]: z.string() }),
    ...(declare
      ? {
          effects: (input: Record<string, string>) =>
            kind === "read" ? { reads: [input[name]] } : { writes: [input[name]] },
        }
      : {}),
    async run(input: Record<string, string>) {
      ran.push(input[name]);
      if (kind === "read") return readFileSync(input[name], "utf8");
      writeFileSync(input[name], "written by the model\n");
      return "written";
    },
  });
  return { tool, ran };
}

/** One call of `tool` through the real loop, approved by the policy a headless CLI run in `mode` gets. */
async function callHeadless(tool: Tool, argument: Record<string, string>, mode: ApprovalMode) {
  const cwd = tempDir();
  const harnessHome = tempDir("harness-state-");
  const permissions = setupPermissions({ approve: mode }, { cwd, env: { HOME: home }, harnessHome });
  const approve = createApprover({ policy: permissions.policy, cwd });
  const server = await startFakeLLM([
    { reply: { toolCalls: [{ id: "probe", name: tool.name, arguments: argument }] } },
    { reply: { text: "done" } },
  ]);
  servers.push(server);
  const events: AgentEvent[] = [];
  for await (const event of runAgent({
    provider: fakeOpenAIProvider(server),
    tools: [tool],
    system: "",
    cwd,
    messages: [],
    prompt: "go",
    approve,
    retry: { maxRetries: 0, baseDelayMs: 1 },
  }))
    events.push(event);
  const sent = server.requests[1].body.messages.find((m: { tool_call_id?: string }) => m.tool_call_id === "probe");
  return { result: sent.content as string, cwd };
}

for (const name of ARGUMENT_NAMES) {
  test(`a read tool declaring its file as \`${name}\` is refused ~/.ssh/id_rsa in the default mode`, async () => {
    const { tool, ran } = libraryTool("read", name, true);
    const { result } = await callHeadless(tool, { [name]: join(home, ".ssh", "id_rsa") }, "ask");
    assert.deepEqual(ran, [], "the tool never ran");
    assert.doesNotMatch(result, new RegExp(CANARY));
    assert.match(result, /The user did not allow this tool call\. .*where credentials live/);
  });

  test(`an edit tool declaring its file as \`${name}\` is refused /etc/x under --approve edits`, async () => {
    const target = join("/etc", `harness-effects-${name}`);
    const { tool, ran } = libraryTool("edit", name, true);
    const { result } = await callHeadless(tool, { [name]: target }, "edits");
    assert.deepEqual(ran, []);
    assert.equal(existsSync(target), false);
    assert.match(result, /The user did not allow this tool call\. .*outside the workspace/);
  });

  test(`a file tool with \`${name}\` that declares no effects is refused headless, even under --yes`, async () => {
    for (const kind of ["read", "edit"] as const) {
      for (const mode of ["ask", "edits", "all"] as const) {
        const { tool, ran } = libraryTool(kind, name, false);
        const { result } = await callHeadless(tool, { [name]: "inside.txt" }, mode);
        assert.deepEqual(ran, [], `${kind} in mode ${mode} never ran`);
        assert.match(result, /no one was there to approve it .*does not declare which files it reads or writes/);
      }
    }
  });
}

test("the same tool declaring its file runs inside the workspace, so the refusals above are the policy's", async () => {
  const { tool } = libraryTool("read", "file_path", true);
  const cwd = tempDir();
  writeFileSync(join(cwd, "inside.txt"), "inside\n");
  const permissions = setupPermissions({}, { cwd, env: { HOME: home }, harnessHome: tempDir("harness-state-") });
  const decision = await createApprover({ policy: permissions.policy, cwd })(
    {
      tool,
      call: { type: "tool_call", id: "1", name: tool.name, arguments: "" },
      input: { file_path: "inside.txt" },
      summary: "read",
    },
    new AbortController().signal,
  );
  assert.equal(decision.allow, true);
});

test("an execute tool that declares nothing (an MCP server's) asks in the default mode and runs under --yes", async () => {
  const ran: string[] = [];
  const tool = defineTool({
    name: "server__deploy",
    description: "deploy",
    kind: "execute",
    input: z.object({ to: z.string() }),
    run: async ({ to }) => {
      ran.push(to);
      return "deployed";
    },
  });
  const asked = await callHeadless(tool, { to: "staging" }, "ask");
  assert.deepEqual(ran, [], "a call that names no file is not allowed by the lack of a path rule");
  assert.match(asked.result, /no one was there to approve it \(headless run without --yes or an allow rule\)/);
  const allowed = await callHeadless(tool, { to: "prod" }, "all");
  assert.equal(allowed.result, "deployed");
  assert.deepEqual(ran, ["prod"]);
});
