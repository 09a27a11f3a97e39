// The rule matcher from the attacker's side: command lines built to slip past allow rules
// (ANSI-C strings, heredocs, strings handed to shells) must be asked about, and the usual ways
// of dressing up a denied command (paths, wrappers, braces, substitution) must still be denied.
import assert from "node:assert/strict";
import { test } from "node:test";
import { decide, type PermissionPolicy } from "../../src/permissions/policy.ts";
import { splitCommand } from "../../src/permissions/shell-split.ts";
import { bash } from "../../src/tools/commands/bash.ts";
import { rulePolicy } from "../support/permission-policy.ts";

const policyWith = (allow: string[], deny: string[] = [], mode: PermissionPolicy["mode"] = "ask") =>
  rulePolicy({ allow, deny }, mode);

const decideCommand = (command: string, policy: PermissionPolicy) =>
  decide(bash, { command }, policy.workspace, policy, []);
const words = (line: string) => splitCommand(line).commands.map((command) => command.words.join(" "));

test("the splitter reads ANSI-C strings and heredocs as bash does, and says it is unsure of them", () => {
  // `$'\''` is one quote: what follows is a command, not the rest of a string.
  const ansi = splitCommand("echo $'\\'' ; touch x ; #'");
  assert.deepEqual(
    ansi.commands.map((command) => command.words),
    [
      ["echo", "'"],
      ["touch", "x"],
    ],
  );
  assert.equal(ansi.unsure, "ANSI-C quoting ($'…')");
  assert.deepEqual(words("echo $'a\\x20b\\tc'"), ["echo a b\tc"]);

  // The body of a heredoc is data, up to its delimiter line; after it, commands again.
  const heredoc = splitCommand("cat <<EOF\nls '\nEOF\ntouch x\necho done");
  assert.deepEqual(
    heredoc.commands.map((command) => command.words.join(" ")),
    ["cat", "touch x", "echo done"],
  );
  assert.equal(heredoc.unsure, "a heredoc");
  assert.deepEqual(words("cat <<-'END'\n\t$(not run)\n\tEND\nls"), ["cat", "ls"]);
  assert.deepEqual(
    words("cat <<END\n$(rm x) and `id`\nEND"),
    ["cat", "rm x", "id"],
    "an unquoted heredoc runs its substitutions",
  );
  assert.equal(splitCommand("cat <<EOF\nno end").parsed, false);
  assert.equal(splitCommand("cat <(ls)").unsure, "process substitution");
  assert.equal(splitCommand("cat <<< 'here string' && ls").unsure, undefined);

  assert.deepEqual(splitCommand("{rm,-rf,x}").commands, [
    { words: ["{rm,-rf,x}"], writesFile: false, expandedWords: ["rm", "-rf", "x"] },
  ]);
  assert.deepEqual(
    splitCommand("'{rm,x}'").commands,
    [{ words: ["{rm,x}"], writesFile: false }],
    "quoted braces stay as they are",
  );
  assert.deepEqual(splitCommand("$(echo rm) -rf x").commands[0], {
    words: ["$(…)", "-rf", "x"],
    writesFile: false,
    expandedWords: ["rm", "-rf", "x"],
    openWords: ["\0", "-rf", "x"],
  });
});

test("with only echo, cat and ls allowed, every trick to run something else asks instead", async () => {
  const policy = policyWith(["bash(echo)", "bash(cat)", "bash(ls)"]);
  const asks = {
    "echo $'\\'' ; touch x ; #'": "it uses ANSI-C quoting ($'…'), which rules cannot check",
    "cat <<EOF\nls '\nEOF\ntouch x\necho '": "the command could not be split into parts to check",
    "cat <<EOF\nhello\nEOF": "it uses a heredoc, which rules cannot check",
    "cat <(ls)": "it uses process substitution, which rules cannot check",
    "eval ls": "eval runs a string as a command, which rules cannot check",
    "source ./setup.sh": "source runs a script inside the shell, which rules cannot check",
    ". ./setup.sh": ". runs a script inside the shell, which rules cannot check",
    "ls && bash -c 'ls'": "bash -c runs a string as a command, which rules cannot check",
    "sh -c -- ls": "sh -c runs a string as a command, which rules cannot check",
    "echo ls | sh": "sh reads the commands it runs from its input, which rules cannot check",
    "env -S 'ls -l'": "env -S runs a string as a command, which rules cannot check",
    "$(echo ls)": "its command name is computed when it runs, which rules cannot check",
    "$CMD x": "its command name is computed when it runs, which rules cannot check",
    "{ls,x}": "its command name is computed when it runs, which rules cannot check",
  };
  for (const [command, why] of Object.entries(asks))
    assert.deepEqual(await decideCommand(command, policy), { type: "ask", why, remember: [] }, command);
  for (const command of ["ls -la | cat -n", "echo hi && ls", 'echo "$(ls)"', "echo 'a; touch x'", "cat <<< 'text'"]) {
    assert.deepEqual(await decideCommand(command, policy), { type: "allow" }, command);
  }
});

test("a rule naming a wrapper does not cover what the wrapper runs", async () => {
  const policy = policyWith([
    "bash(xargs)",
    "bash(find)",
    "bash(timeout)",
    "bash(timeout 5 npm test)",
    "bash(sudo apt-get update)",
  ]);
  for (const command of [
    "ls | xargs rm",
    "find . -name '*.o' -exec rm {} ;",
    "timeout 5 rm -rf x",
    "sudo apt-get install evil",
  ]) {
    assert.equal((await decideCommand(command, policy)).type, "ask", command);
  }
  for (const command of ["timeout 5 npm test", "sudo apt-get update", "find . -name '*.o'"])
    assert.deepEqual(await decideCommand(command, policy), { type: "allow" }, command);
  const remembered = await decideCommand("timeout 10 cargo build", policy);
  assert.deepEqual(
    remembered.type === "ask" && remembered.remember.map((rule) => rule.text),
    ["bash(timeout 10 cargo build)"],
    "always remembers the wrapper with what it runs",
  );
});

test("a bash(rm) deny rule catches rm however it is dressed up, --yes and a bash allow rule notwithstanding", async () => {
  const policy = policyWith(["bash"], ["bash(rm)"], "all");
  const disguises = [
    "/bin/rm -rf x",
    "{rm,-rf,x}",
    "/usr/bin/{rm,-rf,x}",
    "env -S 'rm -rf x'",
    "env --split-string='rm x'",
    "env -u HOME FOO=1 rm x",
    "/usr/bin/env rm x",
    "ls | xargs rm",
    "ls | xargs -I {} -n 1 rm {}",
    "bash -c -- 'rm x'",
    "bash -o pipefail -c 'rm x'",
    'sh -ec "rm x"',
    "sudo rm x",
    "sudo -u root -- rm x",
    "nice -n 5 rm x",
    "timeout -s KILL 5 rm x",
    "command rm x",
    "exec rm x",
    "nohup rm x &",
    "$(echo rm) -rf x",
    "`echo rm` x",
    "echo $(rm x)",
    "find . -exec rm {} \\;",
    "eval 'rm x'",
    "$'\\x72m' x",
    "cat <<EOF\n$(rm x)\nEOF",
    "sudo bash -c 'sudo env -S \"rm x\"'",
  ];
  for (const command of disguises) {
    const decision = await decideCommand(command, policy);
    assert.equal(decision.type, "deny", command);
    assert.match(
      decision.type === "deny" ? decision.reason : "",
      /^the rule bash\(rm\) in \/home\/u\/\.harness\/settings\.json forbids `(\S*\/)?rm\b/,
      command,
    );
  }
  for (const command of ["echo rm", "git rm --cached x", "grep -r 'rm -rf' .", "ls {a,b}"])
    assert.deepEqual(await decideCommand(command, policy), { type: "allow" }, command);
});
