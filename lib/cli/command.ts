import type { OptionSpec, ParsedArguments } from "./read-arguments";

// What every command of the CLI is: the command lists (commands.ts and the *-commands.ts groups) share it.
export interface CommandResult {
  /** Printed alone on stdout with --json. */
  json: Record<string, unknown>;
  /** Printed on stdout otherwise: the value a script would capture (an id, a key) or what a person reads. */
  text: string;
  /** On stderr without --json: a confirmation or the next step, kept off stdout so `$(parley …)` gets the value alone. */
  note?: string;
  /** On stderr always: what must not be missed (a secret that is shown once). */
  warning?: string;
}

export interface Command {
  name: string;
  synopsis: string;
  summary: string;
  options: OptionSpec;
  positionals?: string[];
  /** Checks the arguments (throwing UsageError) before the database is touched; the returned function does the work. */
  prepare(args: ParsedArguments): () => Promise<CommandResult>;
}
