import { parseArgs } from "node:util";

// Wrong usage of the CLI (unknown command or option, a missing or malformed value): exit status 2, as getopt-style
// tools do, so a script can tell "you called me wrong" from "Parley refused" (1).
export class UsageError extends Error {
  constructor(
    message: string,
    /** The command whose synopsis the hint shows; none for an unknown command (the hint is the whole usage). */
    public command?: string,
  ) {
    super(message);
    this.name = "UsageError";
  }
}

export type OptionSpec = Record<string, { type: "string" | "boolean"; short?: string; multiple?: boolean }>;
export type OptionValues = Record<string, string | boolean | undefined>;

export interface ParsedArguments {
  values: OptionValues;
  positionals: string[];
}

// parseArgs says "Option '--name <value>' argument missing" and three lines about ambiguity; an operator needs one line.
function usageMessage(error: NodeJS.ErrnoException): string {
  const option = /'(-[^' ]+)/.exec(error.message)?.[1] ?? "";
  switch (error.code) {
    case "ERR_PARSE_ARGS_UNKNOWN_OPTION":
      return `unknown option ${option}`;
    case "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL":
      return `unexpected argument ${/'([^']*)'/.exec(error.message)?.[1] ?? ""}`.trimEnd();
    case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE":
      if (/does not take an argument/.test(error.message)) return `${option} does not take a value`;
      if (/ambiguous/.test(error.message))
        return `${option} needs a value (for a value starting with "-", write ${option}=<value>)`;
      return `${option} needs a value`;
    default:
      return error.message.split("\n")[0]!;
  }
}

/** Strict parsing: every option is declared, string options need a value, positionals are counted exactly. */
export function readArguments(args: string[], options: OptionSpec, positionals: string[]): ParsedArguments {
  let parsed: { values: Record<string, unknown>; positionals: string[] };
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(usageMessage(error as NodeJS.ErrnoException));
  }
  const values = parsed.values as OptionValues;
  if (values.help) return { values, positionals: parsed.positionals };
  // A last positional written "[<…>…]" takes any number of arguments, none included.
  const rest = /^\[.*…\]$/.test(positionals.at(-1) ?? "");
  const required = rest ? positionals.length - 1 : positionals.length;
  if (!rest && parsed.positionals.length > positionals.length) {
    throw new UsageError(`unexpected argument ${parsed.positionals[positionals.length]}`);
  }
  if (parsed.positionals.length < required) {
    throw new UsageError(`missing ${positionals[parsed.positionals.length]}`);
  }
  return { values, positionals: parsed.positionals };
}

export function optionalString(values: OptionValues, name: string): string | undefined {
  const value = values[name];
  return typeof value === "string" ? value : undefined;
}

export function requiredString(values: OptionValues, name: string, placeholder: string): string {
  const value = optionalString(values, name);
  if (value === undefined) throw new UsageError(`missing --${name} ${placeholder}`);
  if (value.trim() === "") throw new UsageError(`--${name} needs a value`);
  return value.trim();
}
