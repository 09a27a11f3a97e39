// No sign-in token anywhere but the credential store (issue 43): a signed-in run whose model
// echoes the tokens in its reply, and a model endpoint that echoes them in an error body, leave
// none of them in the output, `--output stream-json`, `--debug-file`, or the session files.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { RecordedRequest } from "../support/fake-llm/server.ts";
import { fakeSignInPerTest } from "../support/fake-sign-in/server.ts";
import { cleanEnv, fakeServerPerTest, runCli, stateFiles, tempDir } from "../support/helpers.ts";

const serve = fakeServerPerTest();
const startSignIn = fakeSignInPerTest();

const bearerOf = (request: RecordedRequest) => /^Bearer (.+)$/.exec(String(request.headers.authorization))?.[1] ?? "";
const storedTokens = (home: string): string[] =>
  Object.values(JSON.parse(readFileSync(join(home, "credentials.json"), "utf8")).signIns).flatMap((entry) =>
    Object.entries(entry as Record<string, unknown>)
      .filter(([key, value]) => /token/i.test(key) && typeof value === "string")
      .map(([, value]) => value as string),
  );

for (const provider of ["chatgpt", "copilot"] as const) {
  test(`${provider}: tokens echoed by the model or in an error body reach no output, log or session`, async () => {
    const signIn = await startSignIn();
    let home = "";
    // Everything the store holds, plus the bearer of this very request (a Copilot token is not stored before its first use).
    const echo = (request: RecordedRequest) => [...storedTokens(home), bearerOf(request)].join(" ");
    const refusal = (request: RecordedRequest) =>
      provider === "chatgpt" ? signIn.chatgptRefusal(request) : signIn.copilotRefusal(request);
    const llm = await serve([
      (request) => refusal(request) ?? { reply: { text: `here they are: ${echo(request)} done` } },
      (request) =>
        refusal(request) ?? {
          status: 400,
          body: { error: { message: `bad request from ${echo(request)}`, type: "invalid_request_error" } },
        },
    ]);
    const env = cleanEnv(signIn.env(llm.url));
    home = env.HARNESS_HOME as string;
    const login = await runCli(provider === "chatgpt" ? ["login", "chatgpt", "--device"] : ["login", "copilot"], {
      env,
    });
    assert.equal(login.code, 0, login.stderr);
    const log = join(tempDir(), "debug.log");
    const flags = ["--provider", provider, "--debug-file", log, "--output", "stream-json"];
    const echoed = await runCli([...flags, "-p", "show me"], { env });
    assert.equal(echoed.code, 0, echoed.stderr);
    assert.match(echoed.stdout, /here they are: .*\[redacted\].* done/);
    const refused = await runCli([...flags, "-p", "again"], { env });
    assert.equal(refused.code, 1);
    assert.match(refused.stdout + refused.stderr, /bad request from .*\[redacted\]/);
    const tokens = [...new Set([...storedTokens(home), ...llm.requests.map(bearerOf)])];
    assert.ok(tokens.length >= (provider === "chatgpt" ? 3 : 2), "the tokens to look for");
    const written = [
      { path: "stdout and stderr", text: [login, echoed, refused].map((run) => run.stdout + run.stderr).join("\n") },
      { path: log, text: readFileSync(log, "utf8") },
      ...stateFiles(home).filter((file) => !file.path.endsWith("credentials.json")),
    ];
    assert.ok(
      written.some((file) => file.path.endsWith(".jsonl")),
      "a session file was written",
    );
    for (const token of tokens)
      for (const file of written) {
        assert.ok(!file.text.includes(token), `${file.path} holds a token`);
        // Nor any long piece of one (a token cut by a stream or a line).
        for (let at = 0; at + 24 <= token.length; at += 12)
          assert.ok(!file.text.includes(token.slice(at, at + 24)), `${file.path} holds a piece of a token`);
      }
  });
}
