import { dbProvider } from "./client";
import { execute, runSteps, type RawClient, type Steps } from "./steps";
import type { ColumnKind } from "./column-kind";

// Multi-row INSERTs for the worker's hot writes (SDRs, message parts). Measured here, Prisma's createMany costs about
// 1 ms per row; one statement with many rows costs a few microseconds a row. Values are bound as parameters, in
// the forms Prisma itself stores: on SQLite dates as ISO 8601 text with "+00:00" and booleans as 0/1; on
// PostgreSQL each parameter is cast to its column's type.
export type { ColumnKind };

const PG_CAST: Record<ColumnKind, string> = { text: "", int: "::integer", bool: "::boolean", date: "::timestamp(3)" };
const MAX_PARAMETERS = 30_000;

// The last time written out: the rows of one write mostly share their time (a message's update, its SDRs, its
// event), and writing a date out costs about a microsecond.
let lastTime = Number.NaN;
let lastText = "";

/** A date as Prisma's SQLite adapter stores it ("2026-11-22T19:00:00.000+00:00"). */
function sqliteDate(value: Date): string {
  const time = value.getTime();
  if (time !== lastTime) {
    // An invalid date throws here, as before (its time, NaN, never equals the last).
    lastText = value.toISOString().replace("Z", "+00:00");
    lastTime = time;
  }
  return lastText;
}

function sqliteValue(kind: ColumnKind, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (kind === "date") return sqliteDate(value as Date);
  if (kind === "bool") return value ? 1 : 0;
  return value;
}

function pgValue(kind: ColumnKind, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (kind === "date") return (value as Date).toISOString();
  if (kind === "bool") return value ? "true" : "false";
  if (kind === "int") return String(value);
  return value;
}

/** A value bound as a raw-query parameter, in the form the configured database stores for a column of `kind`. */
export function boundValue(kind: ColumnKind, value: unknown): unknown {
  return dbProvider() === "postgresql" ? pgValue(kind, value) : sqliteValue(kind, value);
}

/** The placeholder of the `position`-th (1-based) parameter of a raw query, cast on PostgreSQL. */
export function placeholder(position: number, kind: ColumnKind): string {
  return dbProvider() === "postgresql" ? `$${position}${PG_CAST[kind]}` : "?";
}

/**
 * A column in a WHERE term that only narrows the rows another term finds by its key (a list of ids): on SQLite a
 * unary `+`, which keeps the planner from searching by that column's index instead. Without statistics (a new
 * database, or a table that was empty when they were last gathered) SQLite prefers an equality on an indexed
 * `status` over `"id" IN (SELECT value FROM json_each(?))`, and reads every row of that status to change a few.
 */
export function narrowingOnly(column: string): string {
  return dbProvider() === "postgresql" ? column : `+${column}`;
}

/**
 * ` INDEXED BY "index"` on SQLite, to follow a table's name in FROM: a partial index whose predicate the query
 * repeats, which SQLite's planner passes over for an index on `status` when it has no statistics (every queued
 * message read to find a few). Nothing on PostgreSQL, whose planner weighs the partial index itself.
 */
export function sqliteIndexedBy(index: string): string {
  return dbProvider() === "postgresql" ? "" : ` INDEXED BY "${index}"`;
}

/**
 * How many rows each INSERT of `count` rows takes, at most `most` a statement. On PostgreSQL as few statements as
 * that allows. On SQLite each statement's row count is a power of two (100 rows: 64, 32 and 4), so that a table's
 * INSERT has a dozen texts at most, each prepared once and kept: a text per row count had the worker prepare a
 * few hundred statements of hundreds of placeholders each in a 15-second load (about 3 % of its CPU), while a
 * statement more costs a few microseconds.
 */
export function rowChunks(count: number, most: number, powersOfTwo: boolean): number[] {
  const cap = powersOfTwo ? 2 ** Math.floor(Math.log2(Math.max(1, most))) : Math.max(1, most);
  const sizes: number[] = [];
  for (let left = count; left > 0;) {
    const size = powersOfTwo ? Math.min(cap, 2 ** Math.floor(Math.log2(left))) : Math.min(cap, left);
    sizes.push(size);
    left -= size;
  }
  return sizes;
}

/**
 * INSERTs `rows` (values in `columns` order) in few statements (rowChunks). `suffix` follows the VALUES, for an
 * `ON CONFLICT …` clause.
 */
export function* insertRowsSteps(
  table: string,
  columns: [name: string, kind: ColumnKind][],
  rows: unknown[][],
  suffix = "",
): Steps<void> {
  if (rows.length === 0) return;
  const postgres = dbProvider() === "postgresql";
  const names = columns.map(([name]) => `"${name}"`).join(", ");
  const perChunk = Math.floor(MAX_PARAMETERS / columns.length);
  // boundValue's choice, made once for the whole insert rather than once a value.
  const bound = postgres ? pgValue : sqliteValue;
  let offset = 0;
  for (const size of rowChunks(rows.length, perChunk, !postgres)) {
    const chunk = rows.slice(offset, (offset += size));
    const values: unknown[] = [];
    for (const row of chunk) columns.forEach(([, kind], i) => values.push(bound(kind, row[i])));
    const key = `${table}\n${names}\n${size}\n${suffix}`;
    let text = postgres ? undefined : sqliteInserts.get(key);
    if (text === undefined) {
      let position = 0;
      const tuple = () =>
        `(${columns.map(([, kind]) => (postgres ? `$${++position}${PG_CAST[kind]}` : "?")).join(", ")})`;
      text = `INSERT INTO "${table}" (${names}) VALUES ${Array.from(chunk, tuple).join(", ")}${suffix ? ` ${suffix}` : ""}`;
      if (!postgres) sqliteInserts.set(key, text);
    }
    yield* execute(text, values);
  }
}

// SQLite's INSERT texts by table, columns, row count and suffix: the same few, built once.
const sqliteInserts = new Map<string, string>();

/** insertRowsSteps through a Prisma client or transaction. */
export async function insertRows(
  client: RawClient,
  table: string,
  columns: [name: string, kind: ColumnKind][],
  rows: unknown[][],
  suffix = "",
): Promise<void> {
  await runSteps(client, insertRowsSteps(table, columns, rows, suffix));
}

/**
 * A function that `values.push`es a value (bound as `kind`) and returns its placeholder: statements built with it
 * list their values in the order the placeholders appear, as SQLite's `?` needs.
 */
export function binder(values: unknown[]): (kind: ColumnKind, value: unknown) => string {
  return (kind, value) => {
    values.push(boundValue(kind, value));
    return placeholder(values.length, kind);
  };
}

/** `items` cut into lists whose placeholders one statement takes (PostgreSQL binds at most 65,535 parameters). */
export function chunks<T>(items: readonly T[], size = 10_000): T[][] {
  const out: T[][] = [];
  for (let offset = 0; offset < items.length; offset += size) out.push(items.slice(offset, offset + size));
  return out;
}

/**
 * The inside of an `IN (…)` holding `items` (bound as `kind`), its values pushed onto `values`. On SQLite one JSON
 * array read by `json_each`: the statement's text is the same whatever the number of items, so it is prepared once
 * (a list of placeholders made a new statement for every length); on PostgreSQL a placeholder each.
 */
export function placeholderList(values: unknown[], items: readonly unknown[], kind: ColumnKind = "text"): string {
  if (dbProvider() !== "postgresql") {
    values.push(JSON.stringify(items.map((item) => sqliteValue(kind, item))));
    return "SELECT value FROM json_each(?)";
  }
  const bind = binder(values);
  return items.map((item) => bind(kind, item)).join(", ");
}

/** A value in the form the SQLite adapter stores for a column of `kind` (for statements run outside Prisma). */
export function sqliteBound(kind: ColumnKind, value: unknown): unknown {
  return sqliteValue(kind, value);
}

/** A message part's columns (as the worker writes one, and the seeded settled messages). */
export const MESSAGE_PART_COLUMNS: [string, ColumnKind][] = [
  ["id", "text"],
  ["messageId", "text"],
  ["segmentNumber", "int"],
  ["carrierMessageId", "text"],
  ["status", "text"],
  ["submittedAt", "date"],
  ["receiptAt", "date"],
];

export const SDR_COLUMNS: [string, ColumnKind][] = [
  ["messageId", "text"],
  ["accountId", "text"],
  ["status", "text"],
  ["statusDetails", "text"],
  ["segmentNumber", "int"],
  ["referenceId", "text"],
  ["createdAt", "date"],
];

export interface SdrRow {
  messageId: string;
  accountId: string;
  status: string;
  statusDetails?: string;
  segmentNumber?: number | null;
  referenceId?: string | null;
  createdAt: Date | string;
}

/** An SDR's values in SDR_COLUMNS order. */
export function sdrValues(s: SdrRow): unknown[] {
  return [
    s.messageId,
    s.accountId,
    s.status,
    s.statusDetails ?? "",
    s.segmentNumber ?? null,
    s.referenceId ?? null,
    new Date(s.createdAt),
  ];
}
