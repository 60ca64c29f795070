import { createApiKey, listApiKeys, revokeApiKeyByIdOrKey } from "../accounts/manage-accounts";
import type { ChangedBy } from "../audit/audit-trail";
import type { Command } from "./command";
import { formatDate, formatTable, keyHint } from "./format-output";
import { optionalString, requiredString, UsageError, type OptionSpec } from "./read-arguments";

// `parley key …`: an account's API keys, created (shown once), listed by prefix, revoked.

const SHOWN_ONCE = "It is shown this once and cannot be shown again: store it now.";

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

const accountOption = { account: { type: "string" } } satisfies OptionSpec;

// The operator's changes go into the account's audit trail too, as "cli".
const CLI: ChangedBy = { actor: "cli" };

export const keyCommands: Command[] = [
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
];
