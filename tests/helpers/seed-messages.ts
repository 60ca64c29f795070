import { db } from "../../lib/db/client";
import { insertRows } from "../../lib/db/insert-rows";
import { MESSAGE_COLUMNS, messageValues } from "../../lib/db/send-rows";
import type { Prisma } from "../../lib/db/generated/sqlite/client";
import { uuidv7 } from "../../lib/db/ids";
import { waitUntil } from "./wait-for";

// Many stored messages quickly, through the service's own multi-row insert and row builder (the triggers and indexes
// of a real send apply): mixed directions, statuses, numbers and bodies, spread evenly over `days` up to now.
export const SEED_BODIES = [
  (n: number) => `Your code is ${100000 + (n % 900000)}`,
  (n: number) => `Flash sale: ${10 + (n % 60)}% off everything today only`,
  (n: number) => `Émile, your order #${n} has shipped`,
  (n: number) => `Reminder: your appointment is at ${8 + (n % 10)}:30 tomorrow`,
  (n: number) => `Hi, this is user_${n % 5000}. Can you call me back?`,
  (n: number) => `Thanks! See you on ${["Monday", "Tuesday", "Friday"][n % 3]}`,
  (n: number) => `Votre colis ${n} arrive demain entre 9h et 12h`,
  (n: number) => `Payment of $${(n % 500) + 1}.00 received, thank you`,
];
const STATUSES = ["delivered", "delivered", "delivered", "delivered", "sent", "failed", "undelivered", "expired"];

/** Message n of a seeded account: every fifth inbound, every twentieth MMS, every tenth with a referenceId. */
export function seededMessage(
  n: number,
  total: number,
  accountId: string,
  numbers: string[],
  first: number,
  span: number,
): Prisma.MessageCreateManyInput {
  const at = new Date(first + Math.floor((n / total) * span));
  const inbound = n % 5 === 4;
  const mms = n % 20 === 7;
  const own = numbers[n % numbers.length]!;
  const phone = `1415${String(2000000 + (n % 50_000)).padStart(7, "0")}`;
  return {
    id: uuidv7(at.getTime()),
    accountId,
    direction: inbound ? "inbound" : "outbound",
    messageType: mms ? "mms" : "sms",
    fromNumber: inbound ? phone : own,
    toNumber: inbound ? own : phone,
    body: SEED_BODIES[n % SEED_BODIES.length]!(n),
    media: mms ? '["https://example.com/picture.jpg"]' : "[]",
    numSegments: 1 + (n % 3),
    encoding: n % 8 === 2 ? "UCS2" : "GSM7",
    status: inbound ? "" : STATUSES[n % STATUSES.length]!,
    referenceId: n % 10 === 3 ? `ref${Math.floor(n / 1000)}` : null,
    createdAt: at,
    updatedAt: at,
  };
}

/** Stores `total` messages for the account in transactions of 10,000 rows (the process must be bound to its database). */
export async function seedMessages(
  accountId: string,
  numbers: string[],
  total: number,
  options: { days?: number; progress?: (stored: number) => void } = {},
): Promise<void> {
  const client = db();
  const span = (options.days ?? 60) * 86_400_000;
  const first = Date.now() - span;
  const batch = 10_000;
  for (let offset = 0; offset < total; offset += batch) {
    const rows: unknown[][] = [];
    for (let n = offset; n < Math.min(total, offset + batch); n++)
      rows.push(messageValues(seededMessage(n, total, accountId, numbers, first, span)));
    await client.$transaction(async (tx) => insertRows(tx, "Message", MESSAGE_COLUMNS, rows), {
      timeout: 120_000,
    });
    options.progress?.(offset + rows.length);
  }
}

/**
 * SQLite: waits until the background body indexer has reached the newest message (as a deployment's has). Until
 * then, every message it has not reached is a candidate of any needle, and a rare needle is looked for as a common one.
 */
export async function bodyIndexCaughtUp(timeoutMs = 60_000): Promise<void> {
  await waitUntil(
    "the body index to catch up with the messages",
    async () => {
      const [state] = await db().$queryRawUnsafe<{ upTo: number | bigint; top: number | bigint }[]>(
        'SELECT (SELECT "indexedUpTo" FROM "MessageBodySearchState") AS upTo, (SELECT max(rowid) FROM "Message") AS top',
      );
      return Number(state!.upTo) >= Number(state!.top);
    },
    timeoutMs,
    200,
  );
}
