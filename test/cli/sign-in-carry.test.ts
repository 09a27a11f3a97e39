// A Copilot sign-in carried to another machine (issue 43, "headless and CI"): the GitHub token of
// a `harness login copilot` made in one HARNESS_HOME, given to a run in another through
// HARNESS_COPILOT_GITHUB_TOKEN. The run works, writes no credentials, and neither its commands
// nor anything it writes see the token.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fakeSignInPerTest } from "../support/fake-sign-in/server.ts";
import { cleanEnv, fakeServerPerTest, runCli, stateFiles } from "../support/helpers.ts";

const serve = fakeServerPerTest();
const startSignIn = fakeSignInPerTest();

test("HARNESS_COPILOT_GITHUB_TOKEN carries a Copilot sign-in to a home without one; commands never see it", async () => {
  const signIn = await startSignIn();
  const llm = await serve([
    (request) =>
      signIn.copilotRefusal(request) ?? {
        reply: { toolCalls: [{ id: "call_env", name: "bash", arguments: { command: "env" } }] },
      },
    (request) => signIn.copilotRefusal(request) ?? { reply: { text: "ran on the carried sign-in" } },
  ]);
  const laptop = cleanEnv(signIn.env(llm.url));
  const login = await runCli(["login", "copilot"], { env: laptop });
  assert.equal(login.code, 0, login.stderr);
  const githubToken: string = JSON.parse(readFileSync(join(laptop.HARNESS_HOME as string, "credentials.json"), "utf8"))
    .signIns.copilot.githubToken;

  const ci = cleanEnv({ ...signIn.env(llm.url), HARNESS_COPILOT_GITHUB_TOKEN: githubToken });
  const ciHome = ci.HARNESS_HOME as string;
  assert.notEqual(ciHome, laptop.HARNESS_HOME);
  const run = await runCli(["-y", "--provider", "copilot", "-p", "go"], { env: ci });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /ran on the carried sign-in/);
  assert.ok(signIn.github.copilotTokenLive(String(llm.requests[0].headers.authorization).slice(7)));
  assert.equal(existsSync(join(ciHome, "credentials.json")), false, "nothing written on the CI machine");
  const toolResult = JSON.stringify(llm.requests[1].body.messages.at(-1));
  assert.match(toolResult, /PATH=/, "the command's environment came back");
  assert.ok(!toolResult.includes(githubToken), "the command saw the token");
  for (const file of stateFiles(ciHome)) assert.ok(!file.text.includes(githubToken), `${file.path} holds it`);
  assert.ok(!(run.stdout + run.stderr).includes(githubToken));
  const auth = await runCli(["auth"], { env: ci });
  assert.equal(auth.code, 0, auth.stderr);
  assert.match(auth.stdout, /^copilot: carried in \$HARNESS_COPILOT_GITHUB_TOKEN \(GitHub Copilot/);
  assert.ok(!(auth.stdout + auth.stderr).includes(githubToken), "harness auth printed the token");

  const bad = await runCli(["--provider", "copilot", "-p", "go"], {
    env: cleanEnv({ ...signIn.env(llm.url), HARNESS_COPILOT_GITHUB_TOKEN: "gho_revokedrevokedrevoked" }),
  });
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /your GitHub sign-in for Copilot was revoked or has expired; run harness login copilot/);
});
