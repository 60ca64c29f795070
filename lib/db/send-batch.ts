import type { ColumnKind } from "./column-kind";
import type { Prisma } from "./generated/sqlite/client";

// The shapes of a send batch, shared by the group commit's modules and the SQLite writer thread's client, and the
// contract of the automatic-bulk count the commit runs: lib/db counts and applies it, the rule itself is the
// sender's (lib/throttle/auto-bulk.ts), handed to configureSendCommits().

/** One send's rows, handed to the group commit (commitSendWrite). */
export interface SendWrite {
  messages: Prisma.MessageCreateManyInput[];
  sdrs: Prisma.SdrCreateManyInput[];
  idempotency?: Prisma.IdempotencyRecordCreateManyInput;
  /** Destinations whose message carries the opt-out footer: when it went, in the same commit as the message. */
  optStates?: OptFooterWrite[];
  /**
   * Automatic bulk: the send's destinations are counted for its account and text in this batch's commit, and if the
   * window then holds more than 20, its messages are committed as bulk (and `bulkResponseBody` replaces the
   * idempotency record's answer). Counting in the commit costs no round trip of its own.
   */
  sameText?: SameTextEntry & { bulkResponseBody?: string };
}

/** What the commit decided for one write. */
export interface SendWriteResult {
  autoBulk: boolean;
}

export interface OptFooterWrite {
  accountId: string;
  number: string;
  lastFooterAt: Date;
}

/** The rows of one table in a batch, in `columns` order; `suffix` follows the VALUES (an upsert's ON CONFLICT). */
export interface TableRows {
  table: string;
  columns: [name: string, kind: ColumnKind][];
  rows: unknown[][];
  suffix?: string;
}

/** What one send adds to the count: its account, text and destinations, at a moment (ms since the epoch). */
export interface SameTextEntry {
  accountId: string;
  textHash: string;
  destinations: number;
  at: number;
}

/** One write's count of automatic bulk, with the cells that change when it makes the write bulk. */
export interface SameTextCount extends SameTextEntry {
  /** Index of the write in the batch. */
  write: number;
  /** [table index, row index, column index, value (in the column's kind)] */
  patches: [number, number, number, unknown][];
}

/** The automatic-bulk rule as the commit applies it: the window's arithmetic and the threshold. */
export interface SameTextRule {
  /** More destinations than this within the window make a send bulk. */
  threshold: number;
  /** Rows of the window that need reading at most (the newest ones) to know whether a send is over the threshold. */
  windowRows: number;
  /** The queued SDR's statusDetails of a message made bulk by the rule. */
  detail: string;
  bucketOf(at: number): number;
  windowStart(at: number): number;
  pruneBefore(at: number): number;
  overThreshold(total: number): boolean;
  batchTotals(
    entries: readonly SameTextEntry[],
    after: ReadonlyMap<string, number>,
    others: ReadonlyMap<string, number>,
  ): number[];
}
