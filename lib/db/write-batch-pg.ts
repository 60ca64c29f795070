import { createHash } from "node:crypto";
import type pg from "pg";
import { hotPool, insertTablesPg } from "./pg-hot-path";
import { batchRows } from "./send-rows";
import { inTransaction } from "./postgres-pool";
import type { SameTextEntry, SameTextRule, SendWrite } from "./send-batch";

// The group commit's PostgreSQL path: the automatic-bulk count in a statement of its own on the hot-path pool, then
// every table's rows of the batch in one statement there.

/**
 * PostgreSQL: one statement adds the batch's destinations (a row per account, text and second, in key order so
 * that concurrent batches lock rows in one order) and reads each key's other buckets of the window. It commits on
 * its own, before the batch's transaction, so a hot text's row is locked for one statement, not a whole batch.
 */
async function countSameTextPg(counts: SameTextEntry[], rule: SameTextRule): Promise<number[]> {
  const increments = new Map<string, [string, string, number, number]>();
  const keys = new Map<string, { accountId: string; textHash: string; since: number; lo: number; hi: number }>();
  for (const c of counts) {
    const bucket = rule.bucketOf(c.at);
    const id = `${c.accountId} ${c.textHash} ${bucket}`;
    const row = increments.get(id) ?? [c.accountId, c.textHash, bucket, 0];
    row[3] += c.destinations;
    increments.set(id, row);
    const k = `${c.accountId} ${c.textHash}`;
    const known = keys.get(k);
    keys.set(k, {
      accountId: c.accountId,
      textHash: c.textHash,
      // The latest send's window: traffic older than 10 minutes never counts.
      since: Math.max(known?.since ?? 0, rule.windowStart(c.at)),
      lo: Math.min(known?.lo ?? bucket, bucket),
      hi: Math.max(known?.hi ?? bucket, bucket),
    });
  }
  const rows = [...increments.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, r]) => r);
  const ks = [...keys.values()];
  // Two batches counting one text in different seconds would each read the other's bucket from before the other's
  // commit (a statement's snapshot), and both miss it: each key is locked (in one order) for the transaction first,
  // so the count's statement starts after any other batch counting that text has committed.
  const result = await inTransaction(hotPool(), async (client) => {
    await client.query(
      `SELECT COUNT(*) FROM (SELECT pg_advisory_xact_lock(k) FROM (SELECT k FROM unnest($1::bigint[]) AS k ORDER BY k) o) l`,
      [[...new Set(ks.map((k) => lockKey(k.accountId, k.textHash)))]],
    );
    return countStatement(client, rows, ks, rule);
  });
  const after = new Map<string, number>();
  const others = new Map<string, number>();
  for (const r of result) {
    if (Number(r.kind) === 0) after.set(`${r.a} ${r.h} ${Number(r.s)}`, Number(r.c));
    else others.set(`${r.a} ${r.h}`, Number(r.c));
  }
  return rule.batchTotals(counts, after, others);
}

/** The advisory lock of one account's text: 64 bits of a hash of both. */
function lockKey(accountId: string, textHash: string): string {
  return BigInt.asIntN(
    64,
    BigInt(`0x${createHash("sha256").update(`${accountId} ${textHash}`).digest("hex").slice(0, 16)}`),
  ).toString();
}

/** Adds the batch's destinations to their buckets and reads each key's other buckets of the window. */
async function countStatement(
  client: pg.PoolClient,
  rows: [string, string, number, number][],
  ks: { accountId: string; textHash: string; since: number; lo: number; hi: number }[],
  rule: SameTextRule,
) {
  const { rows: result } = await client.query<{
    kind: number;
    a: string;
    h: string;
    s: string | number;
    c: string | number;
  }>(
    `WITH up AS (
       INSERT INTO "SameTextCount" ("accountId", "textHash", "second", "count")
       SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::integer[])
       ON CONFLICT ("accountId", "textHash", "second") DO UPDATE SET "count" = "SameTextCount"."count" + excluded."count"
       RETURNING "accountId", "textHash", "second", "count"
     ), k AS (
       SELECT * FROM unnest($5::text[], $6::text[], $7::bigint[], $8::bigint[], $9::bigint[]) AS k(a, h, since, lo, hi)
     )
     SELECT 0 AS kind, "accountId" AS a, "textHash" AS h, "second" AS s, "count"::bigint AS c FROM up
     UNION ALL
     SELECT 1, k.a, k.h, 0, (SELECT COALESCE(SUM(x.c), 0)::bigint FROM (
       SELECT t."count" AS c FROM "SameTextCount" t
       WHERE t."accountId" = k.a AND t."textHash" = k.h AND t."second" >= k.since AND t."second" NOT BETWEEN k.lo AND k.hi
       ORDER BY t."second" DESC LIMIT ${rule.windowRows}) x)
     FROM k`,
    [
      rows.map((r) => r[0]),
      rows.map((r) => r[1]),
      rows.map((r) => String(r[2])),
      rows.map((r) => r[3]),
      ks.map((k) => k.accountId),
      ks.map((k) => k.textHash),
      ks.map((k) => String(k.since)),
      ks.map((k) => String(k.lo)),
      ks.map((k) => String(k.hi)),
    ],
  );
  return result;
}

// PostgreSQL counts before the batch's transaction: what a write's count decided is kept here (and applied to the
// write), so a write committed again alone after its batch failed is not counted twice.
const counted = new WeakMap<SendWrite, boolean>();

function markBulk(write: SendWrite, rule: SameTextRule): void {
  for (const m of write.messages) m.bulk = true;
  for (const s of write.sdrs) if (s.status === "queued") s.statusDetails = rule.detail;
  if (write.idempotency && write.sameText?.bulkResponseBody !== undefined) {
    write.idempotency.responseBody = write.sameText.bulkResponseBody;
  }
}

/** Commits the writes on PostgreSQL; returns, in write order, whether each became bulk by its text's count. */
export async function writeBatchPg(writes: SendWrite[], rule: SameTextRule, prune: number | null): Promise<boolean[]> {
  if (prune !== null) {
    await hotPool().query(`DELETE FROM "SameTextCount" WHERE "second" < $1::bigint`, [String(prune)]);
  }
  const uncounted = writes.filter((w) => w.sameText && !counted.has(w));
  if (uncounted.length > 0) {
    const totals = await countSameTextPg(
      uncounted.map((w) => w.sameText!),
      rule,
    );
    for (const [i, w] of uncounted.entries()) {
      const bulk = rule.overThreshold(totals[i]!);
      counted.set(w, bulk);
      if (bulk) markBulk(w, rule);
    }
  }
  const { tables } = batchRows(
    writes.map((w) => ({ ...w, sameText: undefined })),
    rule,
  );
  // Every table's rows in one statement on the hot path's own pool (through Prisma, an interactive transaction of
  // multi-row INSERTs cost several round trips and most of the main thread per send).
  await insertTablesPg(tables);
  return writes.map((w) => counted.get(w) ?? false);
}
