// Deny and ask rules against commands that hide what they run (issue 51): every spelling of
// `git push origin main` and `rm victim.txt` in shell-spellings.ts is refused by a deny rule and
// asked about by an ask rule, with --yes and a `Bash` allow rule; written out, the rule names the
// command; hidden, the reason is that harness cannot tell what it runs. Ordinary commands no rule
// names still run unasked, and an allow rule covers a computed command only by its known words.
import assert from "node:assert/strict";
import { test } from "node:test";
import { decide, type PermissionPolicy } from "../../src/permissions/policy.ts";
import { bash } from "../../src/tools/commands/bash.ts";
import { rulePolicy } from "../support/permission-policy.ts";
import { GIT_PUSH_SPELLINGS, type Hiding, ORDINARY, RM_SPELLINGS } from "../support/shell-spellings.ts";

const SOURCE = "/p/.claude/settings.json";
const GUARDED = ["Bash(git push:*)", "Bash(rm:*)"];
const policy = (kind: "deny" | "ask", allow = ["Bash"], mode: PermissionPolicy["mode"] = "all") =>
  rulePolicy({ allow, [kind]: GUARDED }, mode, SOURCE);

const decideCommand = (command: string, on: PermissionPolicy) => decide(bash, { command }, on.workspace, on, []);
const spell = (command: string) => command.replaceAll("{home}", "/var/tmp/h");
const named = (rule: string, hiding: Hiding) =>
  hiding === "written" ? `\`${rule}` : "what this command may run: harness cannot tell what it runs \\(";

for (const [name, spellings, rule] of [
  ["git push", GIT_PUSH_SPELLINGS, "git push"],
  ["rm", RM_SPELLINGS, "rm"],
] as const) {
  test(`every spelling of ${name} is refused by a deny rule and asked by an ask rule, --yes and allow Bash notwithstanding`, async () => {
    const pattern = `Bash\\(${name}:\\*\\)`;
    for (const [written, hiding] of spellings) {
      const command = spell(written);
      const denied = await decideCommand(command, policy("deny"));
      // A hidden command may be what either rule names: the first that could match is given.
      const which = hiding === "written" ? pattern : "Bash\\((git push|rm):\\*\\)";
      assert.match(
        denied.type === "deny" ? denied.reason : JSON.stringify(denied),
        new RegExp(`^the rule ${which} in ${SOURCE} forbids ${named(rule, hiding)}`),
        command,
      );
      const asked = await decideCommand(command, policy("ask"));
      assert.equal(asked.type === "ask" && asked.explicit, true, command);
      assert.match(
        asked.type === "ask" ? (asked.why ?? "") : "",
        new RegExp(`^the ask rule ${which} in ${SOURCE} asks before ${named(rule, hiding)}`),
        command,
      );
    }
  });
}

test("ordinary commands no rule names still run unasked under those deny and ask rules", async () => {
  for (const kind of ["deny", "ask"] as const)
    for (const command of ORDINARY)
      assert.deepEqual(await decideCommand(command, policy(kind)), { type: "allow" }, `${kind}: ${command}`);
});

test("an allow rule covers a computed command only by the words known before it runs", async () => {
  const allowOnly = (allow: string[]) => rulePolicy({ allow }, "ask", SOURCE);
  const gitStatus = allowOnly(["Bash(git status:*)", "Bash(ls:*)"]);
  for (const command of ["x=status; git $x", "git st?tus", "echo status | xargs git"])
    assert.equal((await decideCommand(command, gitStatus)).type, "ask", command);
  for (const command of ["ls $HOME", 'git status "$FLAGS"', "ls *.txt"])
    assert.deepEqual(await decideCommand(command, gitStatus), { type: "allow" }, command);
  // git's configuration from the environment can make `git log` run any program (core.pager).
  const gitLog = allowOnly(["Bash(git log:*)"]);
  for (const command of [
    "GIT_PAGER='rm -rf x' git log",
    "git -c include.path=/tmp/x log",
    "export GIT_DIR=/x; git log",
  ]) {
    const decision = await decideCommand(command, gitLog);
    assert.match(decision.type === "ask" ? (decision.why ?? "") : "", /which rules cannot check$/, command);
  }
  assert.deepEqual(await decideCommand("git log --oneline", gitLog), { type: "allow" });
  // A rule naming git alone covers every git command, however configured.
  const anyGit = allowOnly(["Bash(git:*)"]);
  assert.deepEqual(await decideCommand("git -c include.path=/tmp/x log", anyGit), { type: "allow" });
});

test("the splitter refuses what bash would refuse, and reads case and coproc", async () => {
  const unparsed = policy("deny");
  for (const command of ["echo )", "a;; b", "echo a(b)", "case x in x) ls", "esac", "echo @(a|b)"]) {
    const decision = await decideCommand(command, unparsed);
    assert.match(
      decision.type === "deny" ? decision.reason : "",
      /harness cannot tell what it runs \(the command could not be split into parts\)/,
      command,
    );
  }
});
