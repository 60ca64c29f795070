import { z } from "zod";
import { db } from "../db/client";
import { uuidv4 } from "../db/ids";
import { apiKeyDisplay, generateApiKey, hashApiKey } from "../auth/api-keys";
import { generatePassword, hashPassword } from "../auth/passwords";
import { ApiError } from "../api/api-error";
import { actorLabel, recordAudit, type ChangedBy } from "../audit/audit-trail";

// Administration of accounts, keys and portal users, shared by the CLI and (later) the portal's admin API. Numbers:
// lib/numbers/manage-numbers.ts.
export class AdminError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AdminError";
  }
}

function isValidTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

export async function createAccount(input: { name: string; timeZone?: string; rateLimitPerSecond?: number }) {
  const name = input.name.trim();
  if (!name) throw new AdminError("an account needs a name");
  const timeZone = input.timeZone ?? "UTC";
  if (!isValidTimeZone(timeZone))
    throw new AdminError(`unknown time zone "${timeZone}" (use an IANA name such as America/New_York)`);
  if (input.rateLimitPerSecond !== undefined && !(input.rateLimitPerSecond > 0)) {
    throw new AdminError("the account limit must be a positive number of messages a second");
  }
  return db().account.create({
    data: { id: uuidv4(), name, timeZone, rateLimitPerSecond: input.rateLimitPerSecond ?? 10 },
  });
}

async function requireAccount(accountId: string) {
  const account = await db().account.findUnique({ where: { id: accountId } });
  if (!account) throw new ApiError("NotFound", { detail: `no account ${accountId}` });
  return account;
}

/**
 * Creates a key; the secret is in the result and nowhere else, ever. `by` (the portal, the admin API, the CLI)
 * records key.created in the account's audit trail.
 */
export async function createApiKey(input: { accountId: string; name?: string; expiresAt?: Date; by?: ChangedBy }) {
  await requireAccount(input.accountId);
  // Written as !(> now) so an Invalid Date (NaN) is refused here too, not by the database.
  if (input.expiresAt && !(input.expiresAt.getTime() > Date.now()))
    throw new ApiError("InvalidRequest", { detail: "the expiry must be a date in the future", field: "expiresAt" });
  const key = generateApiKey();
  const { prefix, last4 } = apiKeyDisplay(key);
  const record = await db().$transaction(async (tx) => {
    const created = await tx.apiKey.create({
      data: {
        id: uuidv4(),
        accountId: input.accountId,
        name: input.name ?? "",
        prefix,
        last4,
        hash: hashApiKey(key),
        expiresAt: input.expiresAt ?? null,
      },
    });
    if (input.by) {
      const expiry = created.expiresAt ? `, expires ${created.expiresAt.toISOString()}` : "";
      await recordAudit(
        {
          accountId: input.accountId,
          actor: actorLabel(input.by.actor),
          action: "key.created",
          target: `${prefix}…${last4}`,
          detail: `"${created.name}"${expiry}`,
          ip: input.by.ip,
        },
        tx,
      );
    }
    return created;
  });
  return {
    key,
    id: record.id,
    prefix,
    last4,
    name: record.name,
    expiresAt: record.expiresAt,
    createdAt: record.createdAt,
  };
}

const apiKeySelect = {
  id: true,
  name: true,
  prefix: true,
  last4: true,
  createdAt: true,
  expiresAt: true,
  revokedAt: true,
  lastUsedAt: true,
} as const;

export async function listApiKeys(accountId: string) {
  await requireAccount(accountId); // a mistyped id says so instead of listing nothing
  return db().apiKey.findMany({ where: { accountId }, orderBy: { createdAt: "asc" }, select: apiKeySelect });
}

export type ApiKeyState = "active" | "expired" | "revoked";

type ApiKeyRow = {
  id: string;
  name: string;
  prefix: string;
  last4: string;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
};

/** A key as the admin API and the portal list it: never the secret, never its hash. */
export function apiKeyListing(row: ApiKeyRow, now = Date.now()) {
  const state: ApiKeyState = row.revokedAt
    ? "revoked"
    : row.expiresAt && row.expiresAt.getTime() <= now
      ? "expired"
      : "active";
  return {
    id: row.id,
    name: row.name,
    hint: `${row.prefix}…${row.last4}`,
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    expiresAt: row.expiresAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
    state,
  };
}
export type ApiKeyListing = ReturnType<typeof apiKeyListing>;

/** One page of the account's keys, newest first, with the total. */
export async function listApiKeyPage(input: { accountId: string; start: number; count: number }) {
  await requireAccount(input.accountId);
  const where = { accountId: input.accountId };
  const [rows, total] = await Promise.all([
    db().apiKey.findMany({
      where,
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      skip: input.start,
      take: input.count,
      select: apiKeySelect,
    }),
    db().apiKey.count({ where }),
  ]);
  const now = Date.now();
  return { total, start: input.start, count: input.count, keys: rows.map((row) => apiKeyListing(row, now)) };
}

type FullApiKeyRow = ApiKeyRow & { accountId: string };

async function revokeRow(existing: FullApiKeyRow, by: ChangedBy | undefined): Promise<FullApiKeyRow> {
  if (existing.revokedAt) return existing; // revoking twice changes nothing and records nothing
  return db().$transaction(async (tx) => {
    const revoked = await tx.apiKey.update({ where: { id: existing.id }, data: { revokedAt: new Date() } });
    if (by) {
      await recordAudit(
        {
          accountId: existing.accountId,
          actor: actorLabel(by.actor),
          action: "key.revoked",
          target: `${existing.prefix}…${existing.last4}`,
          detail: `"${existing.name}"`,
          ip: by.ip,
        },
        tx,
      );
    }
    return revoked;
  });
}

/**
 * Revokes one of the account's keys (the portal, the admin API): the account is part of the lookup, so another
 * account's key id is NotFound and that key keeps working. Servers refuse it within API_KEY_CACHE_SECONDS.
 */
export async function revokeApiKey(input: { accountId: string; id: string; by: ChangedBy }) {
  const existing = await db().apiKey.findFirst({ where: { id: input.id, accountId: input.accountId } });
  if (!existing) throw new ApiError("NotFound", { detail: `no API key ${input.id} in this account` });
  return revokeRow(existing, input.by);
}

/** The operator's revoke (the CLI): by id, or by the key itself (for a key found leaked somewhere), any account. */
export async function revokeApiKeyByIdOrKey(idOrKey: string, by?: ChangedBy) {
  const where = idOrKey.startsWith("pk_") ? { hash: hashApiKey(idOrKey) } : { id: idOrKey };
  const existing = await db().apiKey.findUnique({ where });
  if (!existing) throw new ApiError("NotFound", { detail: "no such API key" });
  return revokeRow(existing, by);
}

const emailSchema = z.email();

/**
 * Creates a portal user. Without a password one is generated and returned once as `generatedPassword` (the
 * portal's "Add user"); `by` records user.created in the account's audit trail.
 */
export async function createUser(input: {
  accountId: string;
  email: string;
  password?: string;
  role: "admin" | "agent";
  name?: string;
  by?: ChangedBy;
}) {
  await requireAccount(input.accountId);
  const email = input.email.trim().toLowerCase();
  const invalid = (detail: string, field: string) => new ApiError("InvalidRequest", { detail, field });
  if (!emailSchema.safeParse(email).success) throw invalid(`"${input.email}" is not an email address`, "email");
  const generated = input.password === undefined ? generatePassword() : undefined;
  const password = input.password ?? generated!;
  if (password.length < 8) throw invalid("a password needs at least 8 characters", "password");
  // Emails are unique across accounts (they are the sign-in name).
  if (await db().user.findUnique({ where: { email } })) throw invalid(`a user ${email} exists already`, "email");
  const passwordHash = await hashPassword(password);
  const user = await db().$transaction(async (tx) => {
    const created = await tx.user.create({
      data: { id: uuidv4(), accountId: input.accountId, email, name: input.name ?? "", role: input.role, passwordHash },
    });
    if (input.by) {
      await recordAudit(
        {
          accountId: input.accountId,
          actor: actorLabel(input.by.actor),
          action: "user.created",
          target: email,
          detail: `role ${created.role}`,
          ip: input.by.ip,
        },
        tx,
      );
    }
    return created;
  });
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    role: user.role,
    accountId: user.accountId,
    ...(generated ? { generatedPassword: generated } : {}),
  };
}

export async function listAccounts() {
  return db().account.findMany({ orderBy: { createdAt: "asc" } });
}
