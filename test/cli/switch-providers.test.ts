// A session moved between providers, models and wire APIs with `-c`, every service on its strict
// fake (fake-llm/personas.ts): each turn a tool loop of three calls with thinking where the model
// has it, so every request carries replies, ids and reasoning of the providers before it, and
// none may be one the next service refuses. Also after an interrupt and after kill -9 mid-loop.
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { FakeLLM, ScriptStep } from "../support/fake-llm/server.ts";
import { fakeServerPerTest } from "../support/helpers.ts";
import { runOn, TARGETS, type Target, toolLoop, workspace } from "../support/provider-targets.ts";

const serve = fakeServerPerTest();

/** Runs one session through `keys` in order, a tool loop on each; returns each target's server. */
async function chain(keys: string[]): Promise<FakeLLM[]> {
  const place = workspace();
  const servers: FakeLLM[] = [];
  for (const [step, key] of keys.entries()) {
    const target = TARGETS[key];
    const fake = await serve(toolLoop(target, `${key} done`, step * 10 + 1));
    servers.push(fake);
    const result = await runOn(target, fake, place, [...(step > 0 ? ["-c"] : []), "-p", `turn ${step} on ${key}`]);
    assert.equal(result.code, 0, `${key} after ${keys.slice(0, step).join(" → ")}: ${result.stderr}`);
    assert.equal(result.stdout.trim(), `${key} done`);
  }
  return servers;
}

const ALL = Object.keys(TARGETS);

test(`one session through every provider and wire API in turn: ${ALL.join(" → ")}`, async () => {
  const servers = await chain(ALL);
  // The last request carried the whole conversation: ten providers' replies, converted for Gemini.
  const last = servers.at(-1)?.requests.at(-1)?.body;
  assert.ok(last.contents.length > 30, "the history came along");
});

test("the same session the other way round, each provider after the one it follows least", async () => {
  await chain([...ALL].reverse());
});

test("chat ⇄ responses ⇄ anthropic ⇄ gemini and back, on one session", async () => {
  await chain(["openai", "responses", "anthropic", "gemini", "anthropic", "responses", "openai", "gemini", "openai"]);
});

test("another model on the same API: Sonnet's signed thinking is not replayed to Opus, gpt-5-mini's encrypted reasoning not to gpt-5, Gemini Pro's signatures not to Flash", async () => {
  const place = workspace();
  const anthropic = TARGETS.anthropic;
  const claude = await serve([...toolLoop(anthropic, "sonnet done"), ...toolLoop(anthropic, "opus done", 11)]);
  assert.equal((await runOn(anthropic, claude, place, ["-p", "first"])).code, 0);
  const opus = await runOn(anthropic, claude, place, ["-c", "--model", "claude-opus-4-1", "-p", "second"]);
  assert.equal(opus.code, 0, opus.stderr);
  // The persona refuses thinking signed for another model; here is what was sent instead.
  assert.doesNotMatch(JSON.stringify(claude.requests.at(-3)?.body.messages), /"type":"thinking"/, "none of Sonnet's");
  assert.match(JSON.stringify(claude.requests.at(-1)?.body.messages), /"type":"thinking"/, "Opus's own, back to it");

  const responses = TARGETS.responses;
  const openai = await serve([...toolLoop(responses, "mini done"), ...toolLoop(responses, "gpt-5 done", 11)]);
  assert.equal((await runOn(responses, openai, place, ["-p", "fifth"])).code, 0);
  const gpt5 = await runOn(responses, openai, place, ["-c", "--model", "gpt-5", "-p", "sixth"]);
  assert.equal(gpt5.code, 0, gpt5.stderr);

  const gemini = TARGETS.gemini;
  const google = await serve([...toolLoop(gemini, "pro done"), ...toolLoop(gemini, "flash done", 11)]);
  assert.equal((await runOn(gemini, google, place, ["-p", "third"])).code, 0);
  const flash = await runOn(gemini, google, place, ["-c", "--model", "gemini-3-flash-preview", "-p", "fourth"]);
  assert.equal(flash.code, 0, flash.stderr);
});

/** A first turn on `from` stopped by `signal` while its second model call is under way, then `-c` on `to`. */
async function stoppedThenMoved(from: Target, to: Target, signal: NodeJS.Signals, code: number | null) {
  const place = workspace();
  let child: ChildProcess | undefined;
  const stop: ScriptStep = () => {
    child?.kill(signal);
    return { hang: true };
  };
  const first = await serve([toolLoop(from, "")[0], stop]);
  const stopped = await runOn(from, first, place, ["-p", "read them"], (spawned) => {
    child = spawned;
  });
  assert.equal(signal === "SIGKILL" ? stopped.signal : stopped.code, signal === "SIGKILL" ? "SIGKILL" : code);
  const second = await serve(toolLoop(to, "moved on", 21));
  const moved = await runOn(to, second, place, ["-c", "-p", "go on"]);
  assert.equal(moved.code, 0, moved.stderr);
  assert.equal(moved.stdout.trim(), "moved on");
  return second;
}

test("after an interrupt mid-loop: a Kimi session goes on on Anthropic with thinking, and an Anthropic one on Gemini", async () => {
  await stoppedThenMoved(TARGETS.kimi, TARGETS.anthropic, "SIGINT", 130);
  await stoppedThenMoved(TARGETS.anthropic, TARGETS.gemini, "SIGINT", 130);
});

test("after kill -9 mid-loop: a Gemini session goes on on Mistral, an OpenRouter one on Anthropic", async () => {
  await stoppedThenMoved(TARGETS.gemini, TARGETS.mistral, "SIGKILL", null);
  await stoppedThenMoved(TARGETS.openrouter, TARGETS.anthropic, "SIGKILL", null);
});

test("a session written before replies carried their source goes on: on its own model, and on another", async () => {
  const place = workspace();
  const anthropic = TARGETS.anthropic;
  const claude = await serve([
    ...toolLoop(anthropic, "first"),
    ...toolLoop(anthropic, "second", 11),
    ...toolLoop(anthropic, "third", 21),
  ]);
  assert.equal((await runOn(anthropic, claude, place, ["-p", "one"])).code, 0);
  const folder = join(place.env.HARNESS_HOME as string, "sessions");
  const files = readdirSync(folder, { recursive: true, encoding: "utf8" }).filter((name) => name.endsWith(".jsonl"));
  assert.equal(files.length, 1);
  const file = join(folder, files[0]);
  // As an older harness wrote it: no source on the replies, the model as Anthropic's server names it.
  const lines = readFileSync(file, "utf8")
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line));
  for (const entry of lines.filter((line) => line.message?.role === "assistant")) {
    delete entry.message.source;
    entry.message.model = "claude-sonnet-4-5-20250929";
  }
  writeFileSync(file, `${lines.map((entry) => JSON.stringify(entry)).join("\n")}\n`);
  const same = await runOn(anthropic, claude, place, ["-c", "-p", "two"]);
  assert.equal(same.code, 0, same.stderr);
  const resumed = JSON.stringify(claude.requests[3].body.messages);
  assert.match(resumed, /"type":"thinking"/, "its own model gets its signed thinking back");
  const other = await runOn(anthropic, claude, place, ["-c", "--model", "claude-opus-4-1", "-p", "three"]);
  assert.equal(other.code, 0, other.stderr);
});
