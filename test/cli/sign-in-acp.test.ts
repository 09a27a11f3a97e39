// A sign-in provider under `harness acp` (issue 43): an editor's session on the ChatGPT plan
// (`HARNESS_PROVIDER=chatgpt`) answers a prompt through the strict fake, the sign-in's headers on
// the request; a model that echoes the tokens leaves none in anything the agent sends the editor.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { methods, PROTOCOL_VERSION } from "@agentclientprotocol/sdk";
import { withEditor } from "../support/acp-editor.ts";
import { PERSONAS } from "../support/fake-llm/personas.ts";
import type { RecordedRequest } from "../support/fake-llm/server.ts";
import { fakeSignInPerTest } from "../support/fake-sign-in/server.ts";
import { cleanEnv, fakeServerPerTest, runCli, tempDir } from "../support/helpers.ts";

const serve = fakeServerPerTest();
const startSignIn = fakeSignInPerTest();

const storedTokens = (home: string): string[] =>
  Object.values(JSON.parse(readFileSync(join(home, "credentials.json"), "utf8")).signIns).flatMap((entry) =>
    Object.entries(entry as Record<string, unknown>)
      .filter(([key, value]) => /token/i.test(key) && typeof value === "string")
      .map(([, value]) => value as string),
  );

test("harness acp: a session on the ChatGPT plan answers, and sends the editor no token", async () => {
  const signIn = await startSignIn();
  let home = "";
  const llm = await serve([
    (request: RecordedRequest) =>
      signIn.chatgptRefusal(request) ?? { reply: { text: `plan answer: ${storedTokens(home).join(" ")} end` } },
  ]);
  llm.persona = PERSONAS.openai();
  const env = cleanEnv({ ...signIn.env(llm.url), HARNESS_PROVIDER: "chatgpt" });
  home = env.HARNESS_HOME as string;
  const login = await runCli(["login", "chatgpt", "--device"], { env });
  assert.equal(login.code, 0, login.stderr);
  const cwd = tempDir();
  const sent: unknown[] = [];
  const log = await withEditor({ env, cwd, answer: () => "allow_once" }, async (ctx) => {
    sent.push(
      await ctx.request(methods.agent.initialize, { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} }),
    );
    const session = await ctx.request(methods.agent.session.new, { cwd, mcpServers: [] });
    sent.push(session);
    sent.push(
      await ctx.request(methods.agent.session.prompt, {
        sessionId: session.sessionId,
        prompt: [{ type: "text", text: "hello plan" }],
      }),
    );
  });
  assert.deepEqual(llm.errors, [], "every request accepted");
  assert.equal(llm.requests.length, 1);
  assert.equal(llm.requests[0].path, "/backend-api/codex/responses");
  assert.equal(llm.requests[0].headers["chatgpt-account-id"], signIn.openai.accountId);
  const text = JSON.stringify([sent, log.updates, log.permissions]) + log.stderr;
  const said = log.updates.map((note) => (note.update as { content?: { text?: string } }).content?.text ?? "").join("");
  assert.match(said, /^plan answer: (\[redacted\] ){3,}end$/, "the answer reached the editor, redacted");
  assert.match(JSON.stringify(sent[2]), /end_turn/);
  const tokens = storedTokens(home);
  assert.ok(tokens.length >= 3, "the tokens to look for");
  for (const token of tokens) {
    assert.ok(!text.includes(token), "a token reached the editor");
    for (let at = 0; at + 24 <= token.length; at += 12)
      assert.ok(!text.includes(token.slice(at, at + 24)), "a piece of a token reached the editor");
  }
});
