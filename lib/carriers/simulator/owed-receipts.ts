import { readTransaction, writeTransaction } from "../../db/steps";
import {
  anyUnheldSteps,
  claimUnheldSteps,
  deleteOwedSteps,
  setOwedClaimsSteps,
  storeOwedSteps,
} from "../../delivery/delivery-queries";

// The simulator's owed receipts in the database (SimulatorReceipt), a few statements whatever the number of rows:
// written in batches as parts are submitted, deleted in batches once recorded, claimed with a renewable lease.
// The statements are in lib/delivery/delivery-queries.ts. Written as the worker's own writes are (writeTransaction):
// on SQLite in the process's grouped transactions, in one synchronous go, rather than through Prisma's client, whose
// raw statements cost the worker 6 % of its CPU under load (and held the write lock outside its grouped commits).

export type OwedStatus = "delivered" | "undelivered" | "failed";

export interface OwedReceipt {
  carrierMessageId: string;
  status: OwedStatus;
  /** The part's first 20 characters, for the receipt's text: field. */
  text: string;
  submittedAt: Date;
  dueAt: Date;
}

/** Stores receipts, held by `owner` until `claimedUntil`, in one statement per few thousand rows. */
export async function storeOwed(receipts: OwedReceipt[], owner: string, claimedUntil: Date): Promise<void> {
  await writeTransaction(() => storeOwedSteps(receipts, owner, claimedUntil));
}

/** Deletes receipts that were recorded. */
export async function deleteOwed(ids: string[]): Promise<void> {
  await writeTransaction(() => deleteOwedSteps(ids));
}

/** Extends the claim on every receipt `owner` holds. */
export async function renewClaims(owner: string, claimedUntil: Date): Promise<void> {
  await writeTransaction(() => setOwedClaimsSteps(owner, owner, claimedUntil));
}

/** Gives back every receipt `owner` holds, for the next simulator to take at once. */
export async function releaseClaims(owner: string): Promise<void> {
  await writeTransaction(() => setOwedClaimsSteps(owner, null, new Date(0)));
}

/**
 * Takes up to `limit` receipts nobody holds (given back, or whose holder stopped renewing its claim), earliest due
 * first. Looks before it writes, so that the usual case (none) takes no write lock on SQLite.
 */
export async function claimUnheld(owner: string, claimedUntil: Date, now: Date, limit: number): Promise<OwedReceipt[]> {
  if (!(await readTransaction(() => anyUnheldSteps(now)))) return [];
  const rows = await writeTransaction(() => claimUnheldSteps(owner, claimedUntil, now, limit));
  return rows.map((r) => ({
    carrierMessageId: r.carrierMessageId,
    status: r.status as OwedStatus,
    text: r.text,
    submittedAt: new Date(r.submittedAt),
    dueAt: new Date(r.dueAt),
  }));
}
