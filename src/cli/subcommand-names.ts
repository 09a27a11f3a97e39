/** The words that start a subcommand rather than a prompt (cli.ts loads each; completion.ts offers them). */
export const SUBCOMMAND_NAMES = [
  "models",
  "mcp",
  "acp",
  "serve",
  "attach",
  "sessions",
  "export",
  "undo",
  "batch",
  "worktrees",
  "worker",
  "help",
  "completion",
  "doctor",
  "login",
  "logout",
  "auth",
] as const;
export type SubcommandName = (typeof SUBCOMMAND_NAMES)[number];
