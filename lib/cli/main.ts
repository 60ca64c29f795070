// The admin CLI: `npm run parley -- <command>` (see `parley help`). Accounts, API keys, numbers, portal users and the
// demo, through the same services the portal uses. stdout carries the answer alone (with --json exactly one JSON
// object), everything else goes to stderr; exit status 0 done, 1 refused or failed, 2 wrong usage.
import pino from "pino";
import { bootstrapEnv, env } from "../env";
import type { Logger } from "../log";
import { prepareDatabase } from "../boot/prepare-database";
import { disconnectDb } from "../db/client";
import { AdminError } from "../accounts/manage-accounts";
import { isApiError } from "../api/api-error";
import { errorCodes } from "../api/error-codes";
import { commands, findCommand, isGroup, synopsisLine, usage } from "./commands";
import type { Command } from "./command";
import { readArguments, UsageError } from "./read-arguments";
import { closeAnnouncer } from "../realtime/announce-changes";
import { processSingleton } from "../process-singletons";

const LEVEL_NAMES: Record<number, string> = {
  10: "trace",
  20: "debug",
  30: "info",
  40: "warn",
  50: "error",
  60: "fatal",
};

// lib/log.ts writes JSON lines to stdout, as a server should; the CLI keeps stdout for its answer, so it puts a logger
// of its own in log.ts's holder before anything asks for one: the same levels, one readable line each on stderr.
function logToStderr(): void {
  const render = (line: string) => {
    const { level, msg, err, ...fields } = JSON.parse(line) as {
      level: number;
      msg?: string;
      err?: { stack?: string };
    };
    const extra = Object.keys(fields).length ? ` ${JSON.stringify(fields)}` : "";
    return `parley: ${LEVEL_NAMES[level] ?? level}: ${msg ?? ""}${extra}\n${err?.stack ? `${err.stack}\n` : ""}`;
  };
  const holder = processSingleton("log", (): { __parleyLog?: Logger } => ({}));
  holder.__parleyLog = pino(
    {
      level: env().LOG_LEVEL,
      base: undefined,
      timestamp: false,
      redact: { paths: ["*.password", "*.apiKey"], remove: true },
    },
    { write: (line: string) => process.stderr.write(render(line)) },
  );
}

function write(stream: NodeJS.WriteStream, text: string): void {
  stream.write(text.endsWith("\n") ? text : `${text}\n`);
}

/** The usage hint under an error: the command's (or group's) synopsis, or the whole usage when the command is unknown. */
function hint(topic: string | undefined): string {
  if (topic === undefined) return usage();
  const shown = commands.filter((c) => c.name === topic || c.name.startsWith(`${topic} `));
  const lines = shown.map(synopsisLine);
  const head = lines.length === 1 ? `Usage: ${lines[0]}` : ["Usage:", ...lines.map((l) => `  ${l}`)].join("\n");
  return `${head}\nRun "parley help" for every command.`;
}

async function run(argv: string[]): Promise<number> {
  let json = false;
  while (argv[0] === "--json") {
    json = true;
    argv = argv.slice(1);
  }
  const [first, second] = argv;

  if (first === undefined || first === "help" || first === "--help" || first === "-h") {
    const words = first === "help" ? argv.slice(1).filter((a) => a !== "--json") : [];
    if (argv.includes("--json")) json = true;
    const topic = words.join(" ") || undefined;
    if (topic && !isGroup(topic) && !commands.some((c) => c.name === topic))
      throw new UsageError(`no command "${topic}"`);
    const text = usage(topic);
    write(process.stdout, json ? JSON.stringify({ usage: text }, null, 2) : text);
    return 0;
  }

  const found = findCommand(argv);
  if (!found) {
    if (isGroup(first)) {
      if ((second === "--help" || second === "-h") && argv.length === 2) {
        write(process.stdout, usage(first));
        return 0;
      }
      const error =
        second === undefined || second.startsWith("-")
          ? new UsageError(`"${first}" needs a subcommand`)
          : new UsageError(`unknown command "${first} ${second}"`);
      error.command = first;
      throw error;
    }
    throw new UsageError(first.startsWith("-") ? `unknown option ${first}` : `unknown command "${first}"`);
  }

  const { command, rest } = found;
  let work: ReturnType<Command["prepare"]>;
  try {
    const args = readArguments(
      rest,
      { ...command.options, json: { type: "boolean" }, help: { type: "boolean", short: "h" } },
      command.positionals ?? [],
    );
    if (args.values.help) {
      write(process.stdout, usage(command.name));
      return 0;
    }
    json ||= args.values.json === true;
    work = command.prepare(args);
  } catch (error) {
    if (error instanceof UsageError) error.command ??= command.name;
    throw error;
  }

  bootstrapEnv(); // as the server does: .env read, so both use the same DATABASE_URL and PUBLIC_URL
  logToStderr();
  try {
    await prepareDatabase();
    const result = await work();
    if (result.warning) write(process.stderr, result.warning);
    if (json) {
      write(process.stdout, JSON.stringify(result.json, null, 2));
    } else {
      write(process.stdout, result.text);
      if (result.note) write(process.stderr, result.note);
    }
  } finally {
    await disconnectDb();
  }
  return 0;
}

function debugging(): boolean {
  try {
    return ["debug", "trace"].includes(env().LOG_LEVEL);
  } catch {
    return false;
  }
}

/** Errors an operator can act on are one line without a stack trace; anything else shows its stack only when debugging. */
function report(error: unknown): number {
  if (error instanceof UsageError) {
    write(process.stderr, `parley: ${error.message}\n${hint(error.command)}`);
    return 2;
  }
  if (error instanceof AdminError) {
    write(process.stderr, `parley: ${error.message}`);
    return 1;
  }
  // The services' refusals (an unknown account, an email in use) are an operator's one-line errors too.
  if (isApiError(error)) {
    write(process.stderr, `parley: ${error.detail ?? errorCodes[error.code].statusMessage}`);
    return 1;
  }
  const message = error instanceof Error ? error.message : String(error);
  write(process.stderr, `parley: ${message}`);
  if (debugging() && error instanceof Error && error.stack) write(process.stderr, error.stack);
  else write(process.stderr, "(LOG_LEVEL=debug shows the details)");
  return 1;
}

function finish(code: number): void {
  process.exitCode = code;
  // A Redis or PostgreSQL emitter that told the servers of a change holds a connection open.
  void closeAnnouncer();
  // The process ends by itself once the database is disconnected; this only guards against a handle left open.
  setTimeout(() => process.exit(code), 5_000).unref();
}

run(process.argv.slice(2)).then(finish, (error: unknown) => finish(report(error)));
