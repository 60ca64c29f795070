import { accountCommands } from "./account-commands";
import { carrierCommands } from "./carrier-commands";
import type { Command } from "./command";
import { demoCommands } from "./demo-commands";
import { inboundCommands } from "./inbound-commands";
import { keyCommands } from "./key-commands";
import { numberCommands } from "./number-commands";
import { optCommands } from "./opt-commands";
import { secretCommands } from "./secret-commands";
import { userCommands } from "./user-commands";
import { webhookCommands } from "./webhook-commands";

// Every command of the CLI, in the order `parley help` lists them (each group in its *-commands.ts), and the
// lookup and usage text built from them.

export const commands: Command[] = [
  ...accountCommands,
  ...keyCommands,
  ...numberCommands,
  ...carrierCommands,
  ...inboundCommands,
  ...userCommands,
  ...demoCommands,
  ...optCommands,
  ...webhookCommands,
  ...secretCommands,
];

/** The command named by the leading words of argv (`key create`, `demo`), and the arguments after them. */
export function findCommand(argv: string[]): { command: Command; rest: string[] } | null {
  for (const command of commands) {
    const words = command.name.split(" ");
    if (words.every((word, i) => argv[i] === word)) return { command, rest: argv.slice(words.length) };
  }
  return null;
}

export function synopsisLine(command: { name: string; synopsis: string }): string {
  return `parley ${command.name}${command.synopsis ? ` ${command.synopsis}` : ""}`;
}

const FOOTER = [
  "Every command accepts --json (exactly one JSON object on stdout, for scripts) and --help.",
  "Environment: DATABASE_URL (default file:./data/parley.db; migrations are applied first), PUBLIC_URL (the",
  "  address the demo prints), PARLEY_PASSWORD (the password of user create, kept off the command line).",
  "Exit status: 0 done; 1 refused or failed (the reason is on stderr); 2 wrong usage.",
];

const describeCommand = (c: { name: string; synopsis: string; summary: string }) =>
  `  ${synopsisLine(c)}\n      ${c.summary}`;

/** The whole usage, or the commands of one group or one command (`parley help key`, `parley key create --help`). */
export function usage(topic?: string): string {
  const shown = topic ? commands.filter((c) => c.name === topic || c.name.startsWith(`${topic} `)) : [];
  if (shown.length) return ["Usage:", ...shown.map(describeCommand), "", ...FOOTER].join("\n");
  const help = { name: "help", synopsis: "[<command>]", summary: "This text, or one command's." };
  return [
    "Parley administration.",
    "",
    "Usage: parley <command> [options]        (from a checkout: npm run parley -- <command> [options])",
    "",
    "Commands:",
    ...[...commands, help].map(describeCommand),
    "",
    ...FOOTER,
  ].join("\n");
}

export function isGroup(word: string | undefined): boolean {
  return word !== undefined && commands.some((c) => c.name.startsWith(`${word} `));
}
