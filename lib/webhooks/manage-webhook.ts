import { randomBytes } from "node:crypto";
import { db } from "../db/client";
import { uuidv4 } from "../db/ids";
import { env } from "../env";
import { logger } from "../log";
import { ApiError } from "../api/api-error";
import { checkWebhookUrl, WebhookUrlError } from "./guard-webhook-url";
import { parseInput } from "../api/parse-input";
import { webhookSettingsInput, type WebhookSettingsInput } from "./webhook-schemas";
import { openWebhookSecret, sealWebhookSecret } from "./seal-webhook-secret";

// An account's webhook settings: one URL, one header (name and value), and signing secrets. Services throw
// ApiError (InvalidRequest, NotFound); the admin API and the CLI both call them.

/** Standard Webhooks secret form: `whsec_` + base64 of 32 random bytes. */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

function invalid(detail: string, field?: string): ApiError {
  return new ApiError("InvalidRequest", { detail, field });
}

async function requireAccount(accountId: string): Promise<void> {
  const account = await db().account.findUnique({ where: { id: accountId }, select: { id: true } });
  if (!account) throw new ApiError("NotFound", { detail: `no account ${accountId}` });
}

export interface WebhookSettings {
  accountId: string;
  url: string | null;
  /** Where an event goes at once when an attempt at `url` fails; null: nowhere else. */
  failoverUrl: string | null;
  headerName: string | null;
  /** The header value is a credential of the customer's receiver: shown masked beyond its last four characters. */
  headerValueHint: string | null;
  /**
   * The signing secrets in use, newest first, by a hint only: the secret itself is the receiver's verification key
   * and leaves the server only when an admin asks for it (revealWebhookSecret), never in a page's HTML or data.
   */
  secrets: { id: string; hint: string; createdAt: string; expiresAt: string | null }[];
  updatedAt: string | null;
}

/** A signing secret in full, for the one who asked to see it. */
export interface RevealedSecret {
  id: string;
  secret: string;
  createdAt: string;
  expiresAt: string | null;
}

function hint(value: string | null): string | null {
  if (value === null) return null;
  return value.length <= 8 ? "•".repeat(value.length) : `${"•".repeat(8)}${value.slice(-4)}`;
}

/** A new signing secret's row, the secret stored sealed. */
function newSecretRow(accountId: string, createdAt: Date) {
  const id = uuidv4();
  return { id, accountId, secret: sealWebhookSecret(generateWebhookSecret(), id), createdAt };
}

/**
 * The signing secrets in use now, newest first, opened: the current one and any rotated-out one still in its overlap.
 * One stored in plain text (or under a previous key) is sealed under the current key on the way; one that cannot be
 * opened (PARLEY_SECRET_KEY changed without the old one in PARLEY_SECRET_KEY_PREVIOUS) cannot sign, and is logged.
 */
export async function signingSecrets(accountId: string, now = new Date()) {
  return (await readSigningSecrets(accountId, now)).secrets;
}

/**
 * signingSecrets, and whether nothing can be signed although secrets are in use: every one of them is sealed under
 * a key this process does not have.
 */
export async function readSigningSecrets(accountId: string, now = new Date()) {
  const rows = await db().webhookSecret.findMany({
    where: { accountId, OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] },
    orderBy: { createdAt: "desc" },
    select: { id: true, secret: true, createdAt: true, expiresAt: true },
  });
  const secrets = [];
  for (const row of rows) {
    const opened = openWebhookSecret(row.secret, row.id);
    if (!opened) {
      logger().warn(
        { accountId, secretId: row.id },
        "a webhook signing secret cannot be opened with PARLEY_SECRET_KEY",
      );
      continue;
    }
    if (opened.reseal) {
      // Only if the row still holds what was read; another reader sealing it at the same time is just as good.
      await db().webhookSecret.updateMany({
        where: { id: row.id, secret: row.secret },
        data: { secret: sealWebhookSecret(opened.plain, row.id) },
      });
    }
    secrets.push({ ...row, secret: opened.plain });
  }
  return { secrets, unsigned: secrets.length === 0 && rows.length > 0 };
}

/** "whsec_…AbCd": enough to tell two secrets apart, nothing to sign with. */
function secretHint(secret: string): string {
  return `whsec_…${secret.slice(-4)}`;
}

function revealed(s: { id: string; secret: string; createdAt: Date; expiresAt: Date | null }): RevealedSecret {
  return {
    id: s.id,
    secret: s.secret,
    createdAt: s.createdAt.toISOString(),
    expiresAt: s.expiresAt?.toISOString() ?? null,
  };
}

/**
 * One signing secret in use, in full: what the portal's Reveal asks for (admins only, audited by the route). A
 * secret of another account, or one no longer signing, is NotFound.
 */
export async function revealWebhookSecret(accountId: string, secretId: string): Promise<RevealedSecret> {
  const secret = (await signingSecrets(accountId)).find((s) => s.id === secretId);
  if (!secret) throw new ApiError("NotFound", { detail: `no signing secret ${secretId} in use` });
  return revealed(secret);
}

/** Every signing secret in use, in full, newest first: for the operator's CLI on the server itself. */
export async function revealWebhookSecrets(accountId: string): Promise<RevealedSecret[]> {
  await requireAccount(accountId);
  return (await signingSecrets(accountId)).map(revealed);
}

export async function getWebhookSettings(accountId: string): Promise<WebhookSettings> {
  await requireAccount(accountId);
  const endpoint = await db().webhookEndpoint.findUnique({ where: { accountId } });
  const secrets = await signingSecrets(accountId);
  return {
    accountId,
    url: endpoint?.url ?? null,
    failoverUrl: endpoint?.failoverUrl ?? null,
    headerName: endpoint?.headerName ?? null,
    headerValueHint: hint(endpoint?.headerValue ?? null),
    secrets: secrets.map((s) => {
      const { secret, ...dates } = revealed(s);
      return { ...dates, hint: secretHint(secret) };
    }),
    updatedAt: endpoint?.updatedAt.toISOString() ?? null,
  };
}

/**
 * Sets the URL and header. The URL is checked against the guard now
 * (and again at every delivery). Without a header name the header is removed; a header name without a value keeps
 * the value stored for that same header (the portal never has it back to send again). The first setting creates the
 * account's signing secret.
 */
export async function setWebhookSettings(accountId: string, settings: WebhookSettingsInput): Promise<WebhookSettings> {
  // The CLI calls this too: every caller's input passes the same schema as the admin API's.
  const input = parseInput(webhookSettingsInput, settings);
  await requireAccount(accountId);
  const url = input.url;
  const failoverUrl = input.failoverUrl?.trim() || null;
  if (failoverUrl === url) throw invalid("the failover URL must differ from the webhook URL", "failoverUrl");
  await guardUrl(url, "url");
  if (failoverUrl) await guardUrl(failoverUrl, "failoverUrl");
  const headerName = input.headerName?.trim() || null;
  let headerValue = headerName ? (input.headerValue ?? "").trim() : null;
  if (headerName && !headerValue) {
    const stored = await db().webhookEndpoint.findUnique({
      where: { accountId },
      select: { headerName: true, headerValue: true },
    });
    if (stored?.headerValue && stored.headerName?.toLowerCase() === headerName.toLowerCase()) {
      headerValue = stored.headerValue;
    } else {
      throw invalid("headerValue is required with a new headerName", "headerValue");
    }
  }
  await db().$transaction(async (tx) => {
    await tx.webhookEndpoint.upsert({
      where: { accountId },
      create: { accountId, url, failoverUrl, headerName, headerValue },
      update: { url, failoverUrl, headerName, headerValue },
    });
    const current = await tx.webhookSecret.findFirst({ where: { accountId, expiresAt: null }, select: { id: true } });
    if (!current) {
      await tx.webhookSecret.create({ data: newSecretRow(accountId, new Date()) });
    }
  });
  return getWebhookSettings(accountId);
}

/** The delivery guard's check of a URL now (it runs again at every delivery), refused in words naming the field. */
async function guardUrl(url: string, field: "url" | "failoverUrl"): Promise<void> {
  try {
    await checkWebhookUrl(url, env().WEBHOOK_ALLOW_PRIVATE);
  } catch (error) {
    if (error instanceof WebhookUrlError) {
      // The guard's refusal says which address; say too why, and what an operator can do about it.
      const refused = error.message.includes("is refused");
      throw invalid(
        refused && !env().WEBHOOK_ALLOW_PRIVATE
          ? `${error.message}. Parley only calls public internet addresses; a receiver on a private network or this machine needs the server to run with WEBHOOK_ALLOW_PRIVATE=true (for development)`
          : error.message,
        field,
      );
    }
    throw error;
  }
}

/**
 * Removes the URL and header: no events are written for the account from now on (pending ones are not sent).
 * Answers the settings after, and the URL that was removed (null when there was none).
 */
export async function removeWebhook(
  accountId: string,
): Promise<{ webhook: WebhookSettings; previousUrl: string | null }> {
  await requireAccount(accountId);
  const previous = await db().webhookEndpoint.findUnique({ where: { accountId }, select: { url: true } });
  await db().webhookEndpoint.deleteMany({ where: { accountId } });
  return { webhook: await getWebhookSettings(accountId), previousUrl: previous?.url ?? null };
}

/**
 * A new current secret; the previous one keeps signing beside it for the overlap (default 24 h), so a receiver can
 * switch to the new one without refusing events. Secrets already rotated out keep their earlier expiry.
 */
export async function rotateWebhookSecret(
  accountId: string,
  options: { overlapHours?: number } = {},
): Promise<WebhookSettings> {
  await requireAccount(accountId);
  const overlapHours = options.overlapHours ?? env().WEBHOOK_SECRET_OVERLAP_HOURS;
  if (!Number.isFinite(overlapHours) || overlapHours < 0 || overlapHours > 24 * 30) {
    throw invalid("overlapHours must be between 0 and 720", "overlapHours");
  }
  const now = new Date();
  await db().$transaction(async (tx) => {
    await tx.webhookSecret.updateMany({
      where: { accountId, expiresAt: null },
      data: { expiresAt: new Date(now.getTime() + overlapHours * 3600_000) },
    });
    await tx.webhookSecret.create({ data: newSecretRow(accountId, now) });
  });
  return getWebhookSettings(accountId);
}
