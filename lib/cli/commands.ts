import { randomBytes } from "node:crypto";
import { publicUrl } from "../env";
import {
  AdminError,
  createAccount,
  createApiKey,
  createUser,
  listAccounts,
  listApiKeys,
  revokeApiKeyByIdOrKey,
} from "../accounts/manage-accounts";
import { createDemo, describeDemo } from "../accounts/create-demo";
import { receiveMessage } from "../messaging/receive-message";
import { validTn } from "../messaging/phone-number";
import { checkMediaUrl } from "../messaging/check-media-url";
import { webhookCommands } from "./webhook-commands";
import { e164, formatDate, formatTable, keyHint } from "./format-output";
import { optionalString, requiredString, UsageError, type OptionSpec, type ParsedArguments } from "./read-arguments";
import { describeOpt, optCommands } from "./opt-commands";
import type { ChangedBy } from "../audit/audit-trail";
import { numberCommands } from "./number-commands";
import { resetTwoFactorByEmail } from "../auth/two-factor-enrolment";
import type { Command } from "./command";

const SHOWN_ONCE = "It is shown this once and cannot be shown again: store it now.";

function positiveRate(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const rate = Number(value);
  if (value.trim() === "" || !Number.isFinite(rate) || rate <= 0) {
    throw new UsageError(`--rate must be a positive number of messages a second (such as 10 or 0.5), not "${value}"`);
  }
  return rate;
}

// A date alone means midnight UTC; a time needs its zone (Z or an offset), so the expiry never depends on where the
// command happens to run.
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?$/;

function expiryDate(value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const match = ISO_DATE.exec(value.trim());
  const date = new Date(value.trim());
  const [year, month, day] = (match ?? []).slice(1, 4).map(Number) as [number, number, number];
  const calendar = new Date(Date.UTC(year, month - 1, day));
  const realDay =
    calendar.getUTCFullYear() === year && calendar.getUTCMonth() === month - 1 && calendar.getUTCDate() === day;
  if (!match || Number.isNaN(date.getTime()) || !realDay) {
    throw new UsageError(`--expires must be an ISO date such as 2027-01-31 or 2027-01-31T17:00:00Z, not "${value}"`);
  }
  return date;
}

function role(value: string): "admin" | "agent" {
  if (value !== "admin" && value !== "agent") throw new UsageError(`--role must be admin or agent, not "${value}"`);
  return value;
}

// The password of `user create`: --password, else PARLEY_PASSWORD (so it need not appear in the shell history or in
// `ps`), else a generated one that is printed once. Read here rather than in lib/env.ts: it is one command's input,
// not the server's configuration.
function passwordSource(values: ParsedArguments["values"]): { password: string; generated: boolean } {
  const given = optionalString(values, "password") ?? process.env.PARLEY_PASSWORD;
  if (given !== undefined && given !== "") return { password: given, generated: false };
  return { password: randomBytes(18).toString("base64url"), generated: true };
}

const accountOption = { account: { type: "string" } } satisfies OptionSpec;

// The operator's changes go into the account's audit trail too, as "cli".
const CLI: ChangedBy = { actor: "cli" };

export const commands: Command[] = [
  {
    name: "account create",
    synopsis: "--name <name> [--time-zone <IANA>] [--rate <msgs/s>]",
    summary: "Create an account (time zone UTC and 10 messages a second unless given); prints its id.",
    options: { name: { type: "string" }, "time-zone": { type: "string" }, rate: { type: "string" } },
    prepare({ values }) {
      const name = requiredString(values, "name", "<name>");
      const timeZone = optionalString(values, "time-zone");
      const rateLimitPerSecond = positiveRate(optionalString(values, "rate"));
      return async () => {
        const account = await createAccount({ name, timeZone, rateLimitPerSecond });
        return {
          json: accountJson(account),
          text: account.id,
          note: `Created account "${account.name}" (${account.timeZone}, ${account.rateLimitPerSecond} messages a second). Next: parley key create --account ${account.id}`,
        };
      };
    },
  },
  {
    name: "account list",
    synopsis: "",
    summary: "List the accounts.",
    options: {},
    prepare() {
      return async () => {
        const accounts = await listAccounts();
        const rows = accounts.map((a) => [
          a.id,
          a.name,
          a.timeZone,
          String(a.rateLimitPerSecond),
          formatDate(a.createdAt),
        ]);
        return {
          json: { accounts: accounts.map(accountJson) },
          text: rows.length
            ? formatTable(["ID", "NAME", "TIME ZONE", "MSGS/S", "CREATED"], rows)
            : "No accounts yet. Create one: parley account create --name <name>",
        };
      };
    },
  },
  {
    name: "key create",
    synopsis: "--account <id> [--name <name>] [--expires <ISO date>]",
    summary: "Create an API key and print it, once: only its hash is kept. A date alone expires at midnight UTC.",
    options: { ...accountOption, name: { type: "string" }, expires: { type: "string" } },
    prepare({ values }) {
      const accountId = requiredString(values, "account", "<id>");
      const name = optionalString(values, "name")?.trim();
      const expiresAt = expiryDate(optionalString(values, "expires"));
      return async () => {
        const created = await createApiKey({ accountId, name, expiresAt, by: CLI });
        return {
          json: {
            id: created.id,
            accountId,
            key: created.key,
            name: created.name,
            prefix: created.prefix,
            last4: created.last4,
            expiresAt: created.expiresAt,
          },
          text: created.key,
          warning: `API key ${created.id}${created.name ? ` ("${created.name}")` : ""} for account ${accountId}${
            created.expiresAt ? `, expires ${formatDate(created.expiresAt)}` : ""
          }. ${SHOWN_ONCE}`,
        };
      };
    },
  },
  {
    name: "key list",
    synopsis: "--account <id>",
    summary: "List an account's API keys by prefix and last four characters (never the secret).",
    options: accountOption,
    prepare({ values }) {
      const accountId = requiredString(values, "account", "<id>");
      return async () => {
        const keys = await listApiKeys(accountId);
        const now = Date.now();
        const rows = keys.map((k) => [
          k.id,
          k.name || "-",
          keyHint(k),
          formatDate(k.createdAt),
          formatDate(k.expiresAt, "never") + (k.expiresAt && k.expiresAt.getTime() <= now ? " (expired)" : ""),
          formatDate(k.revokedAt, "no"),
          formatDate(k.lastUsedAt, "never"),
        ]);
        return {
          json: {
            accountId,
            keys: keys.map((k) => ({
              id: k.id,
              name: k.name,
              prefix: k.prefix,
              last4: k.last4,
              createdAt: k.createdAt,
              expiresAt: k.expiresAt,
              revokedAt: k.revokedAt,
              lastUsedAt: k.lastUsedAt,
            })),
          },
          text: rows.length
            ? formatTable(["ID", "NAME", "KEY", "CREATED", "EXPIRES", "REVOKED", "LAST USED"], rows)
            : `Account ${accountId} has no API keys. Create one: parley key create --account ${accountId}`,
        };
      };
    },
  },
  {
    name: "key revoke",
    synopsis: "<key-id | pk_… key>",
    summary:
      "Revoke a key, by its id or by the key itself (one found leaked, say). Servers refuse it within API_KEY_CACHE_SECONDS.",
    options: {},
    positionals: ["<key-id | pk_… key>"],
    prepare({ positionals }) {
      const idOrKey = positionals[0]!.trim();
      return async () => {
        const asked = Date.now();
        const key = await revokeApiKeyByIdOrKey(idOrKey, CLI);
        const already = key.revokedAt !== null && key.revokedAt.getTime() < asked;
        return {
          json: {
            id: key.id,
            accountId: key.accountId,
            name: key.name,
            prefix: key.prefix,
            last4: key.last4,
            revokedAt: key.revokedAt,
            alreadyRevoked: already,
          },
          text: already
            ? `API key ${keyHint(key)} (${key.id}) was already revoked on ${formatDate(key.revokedAt)}.`
            : `Revoked API key ${keyHint(key)} (${key.id}) of account ${key.accountId}.`,
        };
      };
    },
  },
  ...numberCommands,
  {
    name: "inbound",
    synopsis: "--from <phone> --to <account number> [--body <text>] [--media <url>]...",
    summary:
      "Receive a message from a phone, as the simulator carrier would: stored, listed, added to its conversation.",
    options: {
      from: { type: "string" },
      to: { type: "string" },
      body: { type: "string" },
      media: { type: "string", multiple: true },
    },
    prepare({ values }) {
      const from = requiredString(values, "from", "<phone>");
      const to = requiredString(values, "to", "<account number>");
      const body = optionalString(values, "body") ?? "";
      const media = (values.media as string[] | undefined) ?? [];
      if (body === "" && media.length === 0) throw new UsageError("give --body <text> or --media <url> (or both)");
      // An operator typed these: refused here, rather than dropped as a carrier's would be (receiveMessage).
      media.forEach((url, index) => {
        const checked = checkMediaUrl(url);
        if (!checked.ok) throw new UsageError(`--media #${index + 1}: ${checked.problem}`);
      });
      return async () => {
        const fromDigits = validTn(from);
        const toDigits = validTn(to);
        if (!fromDigits) throw new AdminError(`"${from}" is not a valid E.164 telephone number`);
        if (!toDigits) throw new AdminError(`"${to}" is not a valid E.164 telephone number`);
        const received = await receiveMessage({
          from: fromDigits,
          to: toDigits,
          text: body,
          media,
          numSegments: 1,
          receivedAt: new Date(),
        });
        if (!received) throw new AdminError(`${e164(toDigits)} is not provisioned to any account`);
        return {
          json: { ...received, from: e164(fromDigits), to: e164(toDigits) },
          text: received.messageId,
          note: `Received from ${e164(fromDigits)} on ${e164(toDigits)} (account ${received.accountId}).${describeOpt(received.opt)}`,
        };
      };
    },
  },
  {
    name: "user create",
    synopsis: "--account <id> --email <email> --role admin|agent [--name <name>] [--password <password>]",
    summary:
      "Create a portal user. The password comes from --password or PARLEY_PASSWORD; without either one is generated and printed once.",
    options: {
      ...accountOption,
      email: { type: "string" },
      role: { type: "string" },
      name: { type: "string" },
      password: { type: "string" },
    },
    prepare({ values }) {
      const accountId = requiredString(values, "account", "<id>");
      const email = requiredString(values, "email", "<email>");
      const userRole = role(requiredString(values, "role", "admin|agent"));
      const name = optionalString(values, "name")?.trim();
      const { password, generated } = passwordSource(values);
      return async () => {
        const user = await createUser({ accountId, email, role: userRole, name, password, by: CLI });
        const created = `Created ${user.role} ${user.email} (${user.id}) on account ${user.accountId}.`;
        return {
          json: { ...user, ...(generated ? { password } : {}) },
          text: generated ? `${created}\nPassword: ${password}` : created,
          warning: generated
            ? `The generated password is shown this once and cannot be shown again: store it now.`
            : undefined,
        };
      };
    },
  },
  {
    name: "user reset-2fa",
    synopsis: "<email>",
    summary:
      "Reset a portal user's two-factor sign-in (a lost phone): they sign in with their password and set it up again.",
    options: {},
    positionals: ["<email>"],
    prepare({ positionals }) {
      const email = positionals[0]!;
      return async () => {
        const reset = await resetTwoFactorByEmail(email, CLI);
        return {
          json: { email: reset.email, accountId: reset.accountId, twoFactor: "off" },
          text: `Two-factor sign-in of ${reset.email} is reset: they sign in with their password and set it up again.`,
        };
      };
    },
  },
  {
    name: "demo",
    synopsis: "[--name <name>] [--email <email>]",
    summary: "Create a ready demo account: an admin user, two numbers and an API key; prints the credentials once.",
    options: { name: { type: "string" }, email: { type: "string" } },
    prepare({ values }) {
      const name = optionalString(values, "name")?.trim() || undefined;
      const email = optionalString(values, "email")?.trim() || undefined;
      return async () => {
        const demo = await createDemo({ name, email });
        const base = publicUrl();
        return {
          json: {
            portalUrl: `${base}/`,
            email: demo.email,
            password: demo.password,
            accountId: demo.accountId,
            accountName: demo.accountName,
            apiKey: demo.apiKey,
            numbers: demo.numbers,
          },
          text: [
            `A demo account "${demo.accountName}" was created.`,
            "",
            ...describeDemo(demo, base).map((l) => (l ? `  ${l}` : l)),
          ].join("\n"),
          warning: `The password and the API key are shown this once and cannot be shown again: store them now.`,
        };
      };
    },
  },
  ...optCommands,
  ...webhookCommands,
];

function accountJson(account: {
  id: string;
  name: string;
  timeZone: string;
  rateLimitPerSecond: number;
  createdAt: Date;
}) {
  return {
    id: account.id,
    name: account.name,
    timeZone: account.timeZone,
    rateLimitPerSecond: account.rateLimitPerSecond,
    createdAt: account.createdAt,
  };
}

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
