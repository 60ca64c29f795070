import { randomBytes } from "node:crypto";
import { z } from "zod";
import { db } from "../db/client";
import { uuidv4 } from "../db/ids";
import { env } from "../env";
import { ApiError } from "../api/api-error";
import { checkWebhookUrl, WebhookUrlError } from "./guard-webhook-url";

// An account's webhook settings: one URL, one header (name and value), and signing secrets. Services throw
// ApiError (InvalidRequest, NotFound); the admin API and the CLI both call them.

/** Standard Webhooks secret form: `whsec_` + base64 of 32 random bytes. */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

// RFC 9110 token characters for the name; the value may not hold line breaks (header injection) or controls.
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,100}$/;
// Headers Parley sets itself: a customer header may not replace them.
const RESERVED_HEADERS = new Set([
  "content-type",
  "content-length",
  "host",
  "user-agent",
  "connection",
  "transfer-encoding",
  "webhook-id",
  "webhook-timestamp",
  "webhook-signature",
  "parley-event",
]);

export const webhookSettingsInput = z.object({
  url: z.string().min(1, "url is required"),
  headerName: z.string().nullish(),
  headerValue: z.string().nullish(),
});
export type WebhookSettingsInput = z.infer<typeof webhookSettingsInput>;

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
  headerName: string | null;
  /** The header value is a credential of the customer's receiver: shown masked beyond its last four characters. */
  headerValueHint: string | null;
  secrets: { id: string; secret: string; createdAt: string; expiresAt: string | null }[];
  updatedAt: string | null;
}

function hint(value: string | null): string | null {
  if (value === null) return null;
  return value.length <= 8 ? "•".repeat(value.length) : `${"•".repeat(8)}${value.slice(-4)}`;
}

/** The signing secrets in use now, newest first: the current one and any rotated-out one still in its overlap. */
export async function signingSecrets(accountId: string, now = new Date()) {
  return db().webhookSecret.findMany({
    where: { accountId, OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] },
    orderBy: { createdAt: "desc" },
    select: { id: true, secret: true, createdAt: true, expiresAt: true },
  });
}

export async function getWebhookSettings(accountId: string): Promise<WebhookSettings> {
  await requireAccount(accountId);
  const endpoint = await db().webhookEndpoint.findUnique({ where: { accountId } });
  const secrets = await signingSecrets(accountId);
  return {
    accountId,
    url: endpoint?.url ?? null,
    headerName: endpoint?.headerName ?? null,
    headerValueHint: hint(endpoint?.headerValue ?? null),
    // The secret is the receiver's verification key: admins of the account see it (as Stripe and Svix show theirs).
    secrets: secrets.map((s) => ({
      id: s.id,
      secret: s.secret,
      createdAt: s.createdAt.toISOString(),
      expiresAt: s.expiresAt?.toISOString() ?? null,
    })),
    updatedAt: endpoint?.updatedAt.toISOString() ?? null,
  };
}

/**
 * Sets the URL and header. The URL is checked against the guard now (and again at every delivery). Without a
 * header name the header is removed. The first setting creates the account's signing secret.
 */
export async function setWebhookSettings(accountId: string, input: WebhookSettingsInput): Promise<WebhookSettings> {
  await requireAccount(accountId);
  const url = input.url.trim();
  try {
    await checkWebhookUrl(url, env().WEBHOOK_ALLOW_PRIVATE);
  } catch (error) {
    if (error instanceof WebhookUrlError) throw invalid(error.message, "url");
    throw error;
  }
  const headerName = input.headerName?.trim() || null;
  const headerValue = headerName ? (input.headerValue ?? "").trim() : null;
  if (headerName) {
    if (!HEADER_NAME.test(headerName)) throw invalid("headerName is not a valid HTTP header name", "headerName");
    if (RESERVED_HEADERS.has(headerName.toLowerCase())) {
      throw invalid(`headerName ${headerName} is set by Parley itself`, "headerName");
    }
    if (!headerValue) throw invalid("headerValue is required with headerName", "headerValue");
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u0008\u000a-\u001f\u007f]/.test(headerValue) || headerValue.length > 4096) {
      throw invalid(
        "headerValue may not hold line breaks or control characters (4096 characters at most)",
        "headerValue",
      );
    }
  } else if (input.headerValue) {
    throw invalid("headerName is required with headerValue", "headerName");
  }
  await db().$transaction(async (tx) => {
    await tx.webhookEndpoint.upsert({
      where: { accountId },
      create: { accountId, url, headerName, headerValue },
      update: { url, headerName, headerValue },
    });
    const current = await tx.webhookSecret.findFirst({ where: { accountId, expiresAt: null }, select: { id: true } });
    if (!current) {
      await tx.webhookSecret.create({
        data: { id: uuidv4(), accountId, secret: generateWebhookSecret(), createdAt: new Date() },
      });
    }
  });
  return getWebhookSettings(accountId);
}

/** Removes the URL and header: no events are written for the account from now on (pending ones are not sent). */
export async function removeWebhook(accountId: string): Promise<WebhookSettings> {
  await requireAccount(accountId);
  await db().webhookEndpoint.deleteMany({ where: { accountId } });
  return getWebhookSettings(accountId);
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
    await tx.webhookSecret.create({
      data: { id: uuidv4(), accountId, secret: generateWebhookSecret(), createdAt: now },
    });
  });
  return getWebhookSettings(accountId);
}
