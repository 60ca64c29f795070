import { db } from "../../lib/db/client";
import { insertRows, type ColumnKind } from "../../lib/db/insert-rows";
import { uuidv7 } from "../../lib/db/ids";

// Many stored messages quickly, through the service's own multi-row insert (the triggers and indexes of a real
// send apply): mixed directions, statuses, numbers and bodies, spread evenly over `days` up to now.
const COLUMNS: [string, ColumnKind][] = [
  ["id", "text"],
  ["accountId", "text"],
  ["direction", "text"],
  ["messageType", "text"],
  ["fromNumber", "text"],
  ["toNumber", "text"],
  ["body", "text"],
  ["media", "text"],
  ["numSegments", "int"],
  ["encoding", "text"],
  ["status", "text"],
  ["referenceId", "text"],
  ["createdAt", "date"],
  ["updatedAt", "date"],
];

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
) {
  const at = new Date(first + Math.floor((n / total) * span));
  const inbound = n % 5 === 4;
  const mms = n % 20 === 7;
  const own = numbers[n % numbers.length]!;
  const phone = `1415${String(2000000 + (n % 50_000)).padStart(7, "0")}`;
  return [
    uuidv7(at.getTime()),
    accountId,
    inbound ? "inbound" : "outbound",
    mms ? "mms" : "sms",
    inbound ? phone : own,
    inbound ? own : phone,
    SEED_BODIES[n % SEED_BODIES.length]!(n),
    mms ? '["https://example.com/picture.jpg"]' : "[]",
    1 + (n % 3),
    n % 8 === 2 ? "UCS2" : "GSM7",
    inbound ? "" : STATUSES[n % STATUSES.length]!,
    n % 10 === 3 ? `ref${Math.floor(n / 1000)}` : null,
    at,
    at,
  ];
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
      rows.push(seededMessage(n, total, accountId, numbers, first, span));
    await client.$transaction(async (tx) => insertRows(tx, "Message", COLUMNS, rows), { timeout: 120_000 });
    options.progress?.(offset + rows.length);
  }
}
