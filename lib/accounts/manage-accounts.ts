import { z } from "zod";
import { db } from "../db/client";
import { uuidv4 } from "../db/ids";
import { apiKeyDisplay, generateApiKey, hashApiKey } from "../auth/api-keys";
import { hashPassword } from "../auth/passwords";

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
  if (!account) throw new AdminError(`no account ${accountId}`);
  return account;
}

/** Creates a key; the secret is in the result and nowhere else, ever. */
export async function createApiKey(input: { accountId: string; name?: string; expiresAt?: Date }) {
  await requireAccount(input.accountId);
  // Written as !(> now) so an Invalid Date (NaN) is refused here too, not by the database.
  if (input.expiresAt && !(input.expiresAt.getTime() > Date.now()))
    throw new AdminError("the expiry must be a date in the future");
  const key = generateApiKey();
  const { prefix, last4 } = apiKeyDisplay(key);
  const record = await db().apiKey.create({
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
  return { key, id: record.id, prefix, last4, name: record.name, expiresAt: record.expiresAt };
}

export async function listApiKeys(accountId: string) {
  await requireAccount(accountId); // a mistyped id says so instead of listing nothing
  return db().apiKey.findMany({
    where: { accountId },
    orderBy: { createdAt: "asc" },
    select: {
      id: true,
      name: true,
      prefix: true,
      last4: true,
      createdAt: true,
      expiresAt: true,
      revokedAt: true,
      lastUsedAt: true,
    },
  });
}

/** Revokes by id, or by the key itself (for a key found leaked somewhere). */
export async function revokeApiKey(idOrKey: string) {
  const where = idOrKey.startsWith("pk_") ? { hash: hashApiKey(idOrKey) } : { id: idOrKey };
  const existing = await db().apiKey.findUnique({ where });
  if (!existing) throw new AdminError("no such API key");
  if (existing.revokedAt) return existing;
  return db().apiKey.update({ where: { id: existing.id }, data: { revokedAt: new Date() } });
}

const emailSchema = z.email();

export async function createUser(input: {
  accountId: string;
  email: string;
  password: string;
  role: "admin" | "agent";
  name?: string;
}) {
  await requireAccount(input.accountId);
  const email = input.email.trim().toLowerCase();
  if (!emailSchema.safeParse(email).success) throw new AdminError(`"${input.email}" is not an email address`);
  if (input.password.length < 8) throw new AdminError("a password needs at least 8 characters");
  if (await db().user.findUnique({ where: { email } })) throw new AdminError(`a user ${email} exists already`);
  const user = await db().user.create({
    data: {
      id: uuidv4(),
      accountId: input.accountId,
      email,
      name: input.name ?? "",
      role: input.role,
      passwordHash: await hashPassword(input.password),
    },
  });
  return { id: user.id, email: user.email, role: user.role, accountId: user.accountId };
}

export async function listAccounts() {
  return db().account.findMany({ orderBy: { createdAt: "asc" } });
}
