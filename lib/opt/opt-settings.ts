import { ApiError } from "../api/api-error";
import { parseInput } from "../api/parse-input";
import { db, type Db } from "../db/client";
import { DEFAULT_FOOTER } from "./append-footer";
import { optSettingsInput, type OptSettingsInput } from "./opt-schemas";

type Client = Db | Parameters<Parameters<Db["$transaction"]>[0]>[0];

/** The texts an account's opt processing uses, defaults filled in. */
export interface OptTexts {
  footer: string;
  stopReply: string;
  startReply: string;
  helpReply: string;
}

// The automatic replies name the account, as carriers require of a keyword response (CTIA: the program's name,
// what happened, how to undo it).
export function defaultOptTexts(accountName: string): OptTexts {
  return {
    footer: DEFAULT_FOOTER,
    stopReply: `${accountName}: you are unsubscribed and will receive no more messages. Reply START to resubscribe.`,
    startReply: `${accountName}: you are subscribed again. Reply HELP for help, STOP to unsubscribe.`,
    helpReply: `${accountName}: reply STOP to unsubscribe, START to resubscribe. Msg & data rates may apply.`,
  };
}

const TEXT_FIELDS = ["footer", "stopReply", "startReply", "helpReply"] as const;

/** The account's texts as sent: its own where set, the defaults otherwise. Null when the account does not exist. */
export async function readOptTexts(client: Client, accountId: string): Promise<OptTexts | null> {
  const [account, settings] = await Promise.all([
    client.account.findUnique({ where: { id: accountId }, select: { name: true } }),
    client.optSettings.findUnique({ where: { accountId } }),
  ]);
  if (!account) return null;
  const texts = defaultOptTexts(account.name);
  for (const field of TEXT_FIELDS) texts[field] = settings?.[field] ?? texts[field];
  return texts;
}

/** What an admin sees: the texts in use, which of them are the account's own, and the defaults. */
export async function getOptSettings(accountId: string) {
  const client = db();
  const [account, settings] = await Promise.all([
    client.account.findUnique({ where: { id: accountId }, select: { name: true } }),
    client.optSettings.findUnique({ where: { accountId } }),
  ]);
  if (!account) throw new ApiError("NotFound", { detail: `no account ${accountId}` });
  const defaults = defaultOptTexts(account.name);
  const texts = { ...defaults };
  const custom: Record<string, boolean> = {};
  for (const field of TEXT_FIELDS) {
    texts[field] = settings?.[field] ?? defaults[field];
    custom[field] = settings?.[field] != null;
  }
  return { ...texts, custom, defaults, updatedAt: settings?.updatedAt.toISOString() ?? null };
}

/** Sets the texts given; null restores a text's default. */
export async function updateOptSettings(accountId: string, input: OptSettingsInput) {
  const exists = await db().account.findUnique({ where: { id: accountId }, select: { id: true } });
  if (!exists) throw new ApiError("NotFound", { detail: `no account ${accountId}` });
  await db().optSettings.upsert({
    where: { accountId },
    create: { accountId, ...input },
    update: input,
  });
  return getOptSettings(accountId);
}

/** Parses an admin's settings body, with the first problem as the detail. */
export function parseOptSettings(body: unknown): OptSettingsInput {
  return parseInput(optSettingsInput, body);
}
