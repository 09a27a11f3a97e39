// Secrets: what redaction catches before anything is written, and which variables commands never see.
import assert from "node:assert/strict";
import { test } from "node:test";
import { StreamRedactor } from "../../src/core/stream-redactor.ts";
import { filterCommandEnv } from "../../src/permissions/command-env.ts";
import { isCredentialName, redact, redactText, secretValuesOf } from "../../src/shared/redact.ts";

test("key and token shapes, auth headers and .env lines are redacted; ordinary text is not", () => {
  const text = [
    "openai sk-proj-abcdefghijklmnopqrstuv123 anthropic sk-ant-api03-abcdefghijklmnopqrstu openrouter sk-or-v1-0123456789abcdef0123",
    "github ghp_0123456789abcdefghijABCDEFGHIJ012345 aws AKIAIOSFODNN7EXAMPLE slack xoxb-123456789012-abcdefghij",
    "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig",
    'curl -H "x-api-key: abc123def456" https://api.example.com',
    "export DB_PASSWORD=hunter2hunter2",
    "API_TOKEN='quoted-token-value'",
    "PATH=/usr/bin:/bin",
    "the task list is long; skip-the-tests is a flag name",
  ].join("\n");
  assert.equal(
    redactText(text),
    [
      "openai [redacted] anthropic [redacted] openrouter [redacted]",
      "github [redacted] aws [redacted] slack [redacted]",
      "Authorization: [redacted]",
      'curl -H "x-api-key: [redacted]" https://api.example.com',
      "export DB_PASSWORD=[redacted]",
      "API_TOKEN='[redacted]'",
      "PATH=/usr/bin:/bin",
      "the task list is long; skip-the-tests is a flag name",
    ].join("\n"),
  );
});

test("the actual values of credentials in the environment are redacted wherever they appear", () => {
  const secrets = secretValuesOf({ MY_SERVICE_API_KEY: "plainlookingvalue42", HOME: "/home/me", SHORT_TOKEN: "abc" });
  assert.deepEqual(secrets, ["plainlookingvalue42"]);
  assert.equal(
    redactText("url?key=plainlookingvalue42&x=1 in /home/me", secrets),
    "url?key=[redacted]&x=1 in /home/me",
  );
});

test("redact copies a JSON value with every string redacted, leaving provider signatures alone", () => {
  const event = {
    type: "message",
    message: {
      role: "user",
      content: [
        { type: "text", text: "key sk-ant-api03-abcdefghijklmnopqrstu" },
        { type: "thinking", text: "", signature: "sk-ant-looks-like-a-key-but-opaque" },
      ],
    },
  };
  const copy = redact(event);
  assert.deepEqual(copy, {
    type: "message",
    message: {
      role: "user",
      content: [
        { type: "text", text: "key [redacted]" },
        { type: "thinking", text: "", signature: "sk-ant-looks-like-a-key-but-opaque" },
      ],
    },
  });
  assert.equal(event.message.content[0].text, "key sk-ant-api03-abcdefghijklmnopqrstu", "the original is untouched");
  assert.doesNotThrow(() => JSON.parse(JSON.stringify(copy)));
});

test("credential-looking variables leave the command environment unless passed through", () => {
  assert.equal(isCredentialName("SSH_AUTH_SOCK"), true);
  assert.equal(isCredentialName("GIT_AUTHOR_NAME"), false);
  assert.equal(isCredentialName("KEYBOARD_LAYOUT"), false);
  const env = {
    PATH: "/usr/bin",
    OPENAI_API_KEY: "sk-x",
    HARNESS_API_KEY: "anything",
    GITHUB_TOKEN: "t",
    AWS_REGION: "eu-west-1",
    DB_PASSWORD: "p",
    INNOCENT_NAME: "sk-proj-abcdefghijklmnopqrstuv123",
    NPM_TOKEN: "n",
    EXTRA: "e",
    GIT_AUTHOR_NAME: "Ada",
  };
  assert.deepEqual(filterCommandEnv(env, { passthrough: ["NPM_TOKEN"], strip: ["EXTRA"] }), {
    PATH: "/usr/bin",
    NPM_TOKEN: "n",
    GIT_AUTHOR_NAME: "Ada",
  });
  assert.deepEqual(Object.keys(filterCommandEnv(env, { passthrough: ["AWS_*"], strip: [] })).sort(), [
    "AWS_REGION",
    "EXTRA",
    "GIT_AUTHOR_NAME",
    "PATH",
  ]);
});

test("sign-in tokens are redacted: JWTs, OpenAI refresh tokens, Copilot and GitHub OAuth tokens, also cut or streamed", () => {
  const jwt = `${Buffer.from('{"alg":"RS256"}').toString("base64url")}.${Buffer.from('{"exp":1,"sub":"u"}').toString("base64url")}.c2lnbmF0dXJlX2J5dGVz`;
  const copilot = "tid=0123abcd;exp=1767225600;sku=copilot_individual;8kp=1:0123456789abcdef";
  const text = `a ${jwt} r rt_AbCdEfGhIjKlMnOpQrStUvWx.yz c ${copilot} g gho_0123456789abcdefghijAB u ghu_0123456789abcdefghijAB`;
  assert.equal(redactText(text), "a [redacted] r [redacted] c [redacted] g [redacted] u [redacted]");
  assert.equal(redactText(`{"detail":"bad token ${jwt}"}`), '{"detail":"bad token [redacted]"}');
  // Cut off at the end of a text (the rest may come in the next reply).
  assert.equal(redactText(`token: ${jwt.slice(0, 30)}`), "token: [redacted]");
  assert.equal(redactText("tid=0123abcd;ex"), "[redacted]");
  // Ordinary text stays.
  const prose = 'start_time rt_table tid=3 eyJ is base64 for {"';
  assert.equal(redactText(prose), prose);
  // Streamed in small pieces, no piece of either token gets out.
  const stream = new StreamRedactor();
  let out = "";
  for (const piece of `before ${jwt} and ${copilot} after`.match(/.{1,5}/gs) ?? []) out += stream.push(piece);
  out += stream.flush();
  assert.equal(out, "before [redacted] and [redacted] after");
});

test("a streamed JWT far longer than the pending look-back is held whole, never leaked in part", () => {
  // ChatGPT's id tokens run to 2 KB; the stream redactor looks back 256 characters for a pending
  // match, but holds a whole trailing run of key characters (up to 16 KB), so no start escapes.
  const body = Buffer.from(JSON.stringify({ sub: "u", claims: "x".repeat(1500) })).toString("base64url");
  const jwt = `${Buffer.from('{"alg":"RS256"}').toString("base64url")}.${body}.${"s".repeat(342)}`;
  assert.ok(jwt.length > 2000);
  for (const [before, size] of [
    ["Bearer ", 1],
    ['{"access_token":"', 7],
    ["token: ", 300],
  ] as const) {
    const stream = new StreamRedactor();
    const text = `${before}${jwt}" then prose`;
    let out = "";
    for (let at = 0; at < text.length; at += size) out += stream.push(text.slice(at, at + size));
    out += stream.flush();
    assert.equal(out, `${before}[redacted]" then prose`);
  }
});
