// `harness completion <bash|zsh|fish>`: a completion script for the shell, made from the flags'
// table (FLAGS) and the subcommands' names, so it cannot fall behind them.
// Install: `harness completion bash > ~/.local/share/bash-completion/completions/harness`,
// `harness completion zsh > "${fpath[1]}/_harness"`, `harness completion fish > ~/.config/fish/completions/harness.fish`.
import { FLAGS } from "../cli-args.ts";
import { SUBCOMMAND_NAMES } from "../subcommand-names.ts";

const USAGE = "Usage: harness completion <bash|zsh|fish>   print a completion script for that shell\n";

interface FlagWords {
  long: string[];
  short: string[];
}

function flagWords(): FlagWords {
  const entries = Object.entries(FLAGS) as [string, { short?: string }][];
  return {
    long: entries.map(([name]) => `--${name}`),
    short: entries.flatMap(([, flag]) => (flag.short ? [`-${flag.short}`] : [])),
  };
}

function bash({ long, short }: FlagWords): string {
  return `# harness completion for bash (harness completion bash)
_harness() {
  local cur="\${COMP_WORDS[COMP_CWORD]}"
  if [ "$COMP_CWORD" -eq 1 ] && [[ "$cur" != -* ]]; then
    COMPREPLY=( $(compgen -W "${SUBCOMMAND_NAMES.join(" ")}" -- "$cur") )
    return
  fi
  if [[ "$cur" == -* ]]; then
    COMPREPLY=( $(compgen -W "${[...long, ...short].join(" ")}" -- "$cur") )
  fi
}
complete -o default -F _harness harness
`;
}

function zsh({ long, short }: FlagWords): string {
  return `#compdef harness
# harness completion for zsh (harness completion zsh)
_harness() {
  if (( CURRENT == 2 )) && [[ $words[2] != -* ]]; then
    compadd -- ${SUBCOMMAND_NAMES.join(" ")}
  elif [[ $words[CURRENT] == -* ]]; then
    compadd -- ${[...long, ...short].join(" ")}
  else
    _files
  fi
}
compdef _harness harness
`;
}

function fish({ long, short }: FlagWords): string {
  const lines = [
    "# harness completion for fish (harness completion fish)",
    `complete -c harness -n __fish_use_subcommand -f -a "${SUBCOMMAND_NAMES.join(" ")}"`,
    ...long.map((flag) => `complete -c harness -l ${flag.slice(2)}`),
    ...short.map((flag) => `complete -c harness -s ${flag.slice(1)}`),
  ];
  return `${lines.join("\n")}\n`;
}

const SHELLS: Record<string, (words: FlagWords) => string> = { bash, zsh, fish };

export async function run(argv: string[]): Promise<number> {
  const [shell, ...rest] = argv;
  if (shell === "--help" || shell === "-h") {
    process.stdout.write(USAGE);
    return 0;
  }
  const make = shell === undefined ? undefined : SHELLS[shell];
  if (!make || rest.length > 0) {
    process.stderr.write(
      `harness: ${shell === undefined ? "name a shell" : `no completion for "${argv.join(" ")}"`}\n${USAGE}`,
    );
    return 2;
  }
  process.stdout.write(make(flagWords()));
  return 0;
}
