import type { Prisma } from "./generated/sqlite/client";
import { SDR_COLUMNS, sdrValues, type ColumnKind } from "./insert-rows";
import type { SameTextCount, SameTextRule, SendWrite, TableRows } from "./send-batch";

// The rows of a send batch, table by table: the one description both databases' writers of the group commit use,
// with the cells automatic bulk patches when the count makes a write bulk.

/** A message's values in MESSAGE_COLUMNS order (also what tests and benchmarks use to store messages in bulk). */
export function messageValues(m: Prisma.MessageCreateManyInput): unknown[] {
  return [
    m.id,
    m.accountId,
    m.direction,
    m.messageType,
    m.fromNumber,
    m.toNumber,
    m.body,
    m.media ?? "[]",
    m.mediaState ?? "",
    m.numSegments,
    m.encoding,
    m.status,
    m.rejectReason ?? null,
    m.conversational ?? false,
    m.bulk ?? false,
    m.optLogic ?? false,
    m.optStatus ?? "",
    m.referenceId ?? null,
    m.userId ?? null,
    m.userType ?? null,
    m.conversationId ?? null,
    m.sendAt ? new Date(m.sendAt) : null,
    m.validUntil ? new Date(m.validUntil) : null,
    m.campaignId ?? null,
    new Date(m.createdAt),
    new Date(m.updatedAt ?? m.createdAt),
  ];
}

function keyValues(k: Prisma.IdempotencyRecordCreateManyInput): unknown[] {
  return [k.id, k.accountId, k.key, k.requestHash, k.statusCode, k.responseBody, new Date(k.createdAt ?? Date.now())];
}

export const MESSAGE_COLUMNS: [string, ColumnKind][] = [
  ["id", "text"],
  ["accountId", "text"],
  ["direction", "text"],
  ["messageType", "text"],
  ["fromNumber", "text"],
  ["toNumber", "text"],
  ["body", "text"],
  ["media", "text"],
  ["mediaState", "text"],
  ["numSegments", "int"],
  ["encoding", "text"],
  ["status", "text"],
  ["rejectReason", "text"],
  ["conversational", "bool"],
  ["bulk", "bool"],
  ["optLogic", "bool"],
  ["optStatus", "text"],
  ["referenceId", "text"],
  ["userId", "text"],
  ["userType", "text"],
  ["conversationId", "text"],
  ["sendAt", "date"],
  ["validUntil", "date"],
  ["campaignId", "text"],
  ["createdAt", "date"],
  ["updatedAt", "date"],
];

const BULK_COLUMN = MESSAGE_COLUMNS.findIndex(([name]) => name === "bulk");
const DETAILS_COLUMN = SDR_COLUMNS.findIndex(([name]) => name === "statusDetails");

const KEY_COLUMNS: [string, ColumnKind][] = [
  ["id", "text"],
  ["accountId", "text"],
  ["key", "text"],
  ["requestHash", "text"],
  ["statusCode", "int"],
  ["responseBody", "text"],
  ["createdAt", "date"],
];
const RESPONSE_COLUMN = KEY_COLUMNS.findIndex(([name]) => name === "responseBody");

const FOOTER_COLUMNS: [string, ColumnKind][] = [
  ["accountId", "text"],
  ["number", "text"],
  ["status", "text"],
  ["lastFooterAt", "date"],
];

/** A batch's rows, table by table, and the automatic-bulk count of each write that carries one. */
export function batchRows(writes: SendWrite[], rule: SameTextRule): { tables: TableRows[]; counts: SameTextCount[] } {
  // One statement may not change a row twice on PostgreSQL: two sends of a batch may foot the same destination.
  const footers = [
    ...new Map(writes.flatMap((w) => w.optStates ?? []).map((f) => [`${f.accountId} ${f.number}`, f])).values(),
  ];
  const tables = [
    { table: "Message", columns: MESSAGE_COLUMNS, rows: writes.flatMap((w) => w.messages.map(messageValues)) },
    {
      table: "Sdr",
      columns: SDR_COLUMNS,
      rows: writes.flatMap((w) => w.sdrs.map((s) => sdrValues({ ...s, createdAt: new Date(s.createdAt) }))),
    },
    {
      table: "IdempotencyRecord",
      columns: KEY_COLUMNS,
      rows: writes.flatMap((w) => (w.idempotency ? [keyValues(w.idempotency)] : [])),
    },
    {
      // A row made only for the footer keeps status "" (no opt record).
      table: "OptState",
      columns: FOOTER_COLUMNS,
      rows: footers.map((f) => [f.accountId, f.number, "", f.lastFooterAt]),
      suffix: `ON CONFLICT ("accountId", "number") DO UPDATE SET "lastFooterAt" = excluded."lastFooterAt"`,
    },
  ];
  const counts: SameTextCount[] = [];
  // Where each write's rows are: the first three tables take one row per message, SDR or record, in write order.
  let message = 0;
  let sdr = 0;
  let key = 0;
  for (const [index, w] of writes.entries()) {
    if (w.sameText) {
      const { bulkResponseBody, ...entry } = w.sameText;
      const patches: SameTextCount["patches"] = [];
      for (let i = 0; i < w.messages.length; i++) patches.push([0, message + i, BULK_COLUMN, true]);
      for (const [i, s] of w.sdrs.entries()) {
        if (s.status === "queued") patches.push([1, sdr + i, DETAILS_COLUMN, rule.detail]);
      }
      if (w.idempotency && bulkResponseBody !== undefined) patches.push([2, key, RESPONSE_COLUMN, bulkResponseBody]);
      counts.push({ ...entry, write: index, patches });
    }
    message += w.messages.length;
    sdr += w.sdrs.length;
    key += w.idempotency ? 1 : 0;
  }
  // Tables without rows are left out; patches follow their table to its new index.
  const kept = tables.map((t) => t.rows.length > 0);
  const newIndex = kept.map((_, i) => kept.slice(0, i).filter(Boolean).length);
  for (const c of counts) c.patches = c.patches.map(([t, r, col, v]) => [newIndex[t]!, r, col, v]);
  return { tables: tables.filter((t) => t.rows.length > 0), counts };
}
