import { db } from "../../db/client";
import { boundValue, chunks, insertRows, placeholder, placeholderList, type ColumnKind } from "../../db/insert-rows";

// The simulator's owed receipts in the database (SimulatorReceipt), a few statements whatever the number of rows:
// written in batches as parts are submitted, deleted in batches once recorded, claimed with a renewable lease.

export type OwedStatus = "delivered" | "undelivered" | "failed";

export interface OwedReceipt {
  carrierMessageId: string;
  status: OwedStatus;
  /** The part's first 20 characters, for the receipt's text: field. */
  text: string;
  submittedAt: Date;
  dueAt: Date;
}

const COLUMNS: [string, ColumnKind][] = [
  ["carrierMessageId", "text"],
  ["status", "text"],
  ["text", "text"],
  ["submittedAt", "date"],
  ["dueAt", "date"],
  ["claimedBy", "text"],
  ["claimedUntil", "date"],
];

/** Statements bind at most this many ids (SQLite allows 32,766 parameters). */
const CHUNK = 5_000;

/** Stores receipts, held by `owner` until `claimedUntil`, in one statement per few thousand rows. */
export async function storeOwed(receipts: OwedReceipt[], owner: string, claimedUntil: Date): Promise<void> {
  await insertRows(
    db(),
    "SimulatorReceipt",
    COLUMNS,
    receipts.map((r) => [r.carrierMessageId, r.status, r.text, r.submittedAt, r.dueAt, owner, claimedUntil]),
  );
}

/** Deletes receipts that were recorded. */
export async function deleteOwed(ids: string[]): Promise<void> {
  for (const chunk of chunks(ids, CHUNK)) {
    const values: unknown[] = [];
    const list = placeholderList(values, chunk);
    await db().$executeRawUnsafe(`DELETE FROM "SimulatorReceipt" WHERE "carrierMessageId" IN (${list})`, ...values);
  }
}

/** Extends the claim on every receipt `owner` holds. */
export async function renewClaims(owner: string, claimedUntil: Date): Promise<void> {
  await db().$executeRawUnsafe(
    `UPDATE "SimulatorReceipt" SET "claimedUntil" = ${placeholder(1, "date")} WHERE "claimedBy" = ${placeholder(2, "text")}`,
    boundValue("date", claimedUntil),
    boundValue("text", owner),
  );
}

/** Gives back every receipt `owner` holds, for the next simulator to take at once. */
export async function releaseClaims(owner: string): Promise<void> {
  await db().$executeRawUnsafe(
    `UPDATE "SimulatorReceipt" SET "claimedBy" = NULL, "claimedUntil" = ${placeholder(1, "date")}
     WHERE "claimedBy" = ${placeholder(2, "text")}`,
    boundValue("date", new Date(0)),
    boundValue("text", owner),
  );
}

/**
 * Takes up to `limit` receipts nobody holds (given back, or whose holder stopped renewing its claim), earliest due
 * first. Looks before it writes, so that the usual case (none) takes no write lock on SQLite.
 */
export async function claimUnheld(owner: string, claimedUntil: Date, now: Date, limit: number): Promise<OwedReceipt[]> {
  const client = db();
  const any = await client.simulatorReceipt.findFirst({
    where: { claimedUntil: { lt: now } },
    select: { carrierMessageId: true },
  });
  if (!any) return [];
  // The outer condition is checked again on PostgreSQL against a row another simulator claimed meanwhile, so two
  // simulators never both take one.
  const rows = await client.$queryRawUnsafe<{ carrierMessageId: string }[]>(
    `UPDATE "SimulatorReceipt" SET "claimedBy" = ${placeholder(1, "text")}, "claimedUntil" = ${placeholder(2, "date")}
     WHERE "claimedUntil" < ${placeholder(3, "date")} AND "carrierMessageId" IN (
       SELECT "carrierMessageId" FROM "SimulatorReceipt" WHERE "claimedUntil" < ${placeholder(4, "date")}
       ORDER BY "dueAt" LIMIT ${Math.floor(limit)}
     ) RETURNING "carrierMessageId"`,
    boundValue("text", owner),
    boundValue("date", claimedUntil),
    boundValue("date", now),
    boundValue("date", now),
  );
  if (rows.length === 0) return [];
  const claimed = await client.simulatorReceipt.findMany({
    where: { carrierMessageId: { in: rows.map((r) => r.carrierMessageId) }, claimedBy: owner },
    select: { carrierMessageId: true, status: true, text: true, submittedAt: true, dueAt: true },
  });
  return claimed.map((r) => ({ ...r, status: r.status as OwedStatus }));
}
