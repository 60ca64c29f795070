import type pg from "pg";
import { env } from "../env";
import { postgresPool } from "./postgres-pool";
import type { ColumnKind } from "./column-kind";
import { processSingleton } from "../process-singletons";

// PostgreSQL's hot path: the statements every send runs (its destinations' opt states, the batch's rows) on a pg
// pool of their own, as named prepared statements, instead of through Prisma's adapter, whose cost per query on the
// main thread bounded single-destination sends (as SQLite's send writer thread does for SQLite).
const holder = processSingleton("hotPool", (): { __parleyHotPool?: { url: string; pool: pg.Pool } } => ({}));

export function hotPool(): pg.Pool {
  const url = env().DATABASE_URL;
  if (holder.__parleyHotPool?.url === url) return holder.__parleyHotPool.pool;
  void holder.__parleyHotPool?.pool.end().catch(() => {});
  // The same connection guards as the main pool (a silent peer closes the connection; see postgresPool).
  const pool = postgresPool(url, { max: 8, allowExitOnIdle: true });
  holder.__parleyHotPool = { url, pool };
  return pool;
}

export function closeHotPool(): void {
  const current = holder.__parleyHotPool;
  holder.__parleyHotPool = undefined;
  void current?.pool.end().catch(() => {});
}

const ARRAY_TYPE: Record<ColumnKind, string> = {
  text: "text[]",
  int: "integer[]",
  bool: "boolean[]",
  date: "timestamp(3)[]",
};

function arrayValue(kind: ColumnKind, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (kind === "date") return (value as Date).toISOString();
  return value;
}

export interface HotTable {
  table: string;
  columns: [name: string, kind: ColumnKind][];
  rows: unknown[][];
  suffix?: string;
}

/**
 * Every table's rows in ONE statement (data-modifying WITH clauses, a column array per column through unnest): one
 * round trip, atomic, whatever the batch's size; foreign keys are checked at its end.
 */
export async function insertTablesPg(tables: HotTable[]): Promise<void> {
  const present = tables.filter((t) => t.rows.length > 0);
  if (present.length === 0) return;
  const values: unknown[] = [];
  const parts = present.map((t, index) => {
    const arrays = t.columns.map(([, kind], column) => {
      values.push(t.rows.map((row) => arrayValue(kind, row[column])));
      return `$${values.length}::${ARRAY_TYPE[kind]}`;
    });
    const names = t.columns.map(([name]) => `"${name}"`).join(", ");
    return `t${index} AS (INSERT INTO "${t.table}" (${names}) SELECT * FROM unnest(${arrays.join(", ")})${
      t.suffix ? ` ${t.suffix}` : ""
    })`;
  });
  const text = `WITH ${parts.join(", ")} SELECT 1`;
  // Named by shape (tables present), so PostgreSQL plans each shape once per connection.
  await hotPool().query({ name: `send-batch:${present.map((t) => t.table).join(",")}`, text, values });
}
