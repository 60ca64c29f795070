import { createHash, randomUUID } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { databaseProvider, type DatabaseProvider } from "../env";
import { sqliteFilePath } from "./sqlite-path";
import { whileBusy } from "./sqlite-busy.mjs";

// Applies the committed SQL migrations of prisma/migrations/<provider>/ in name order, recording each in Prisma's
// own `_prisma_migrations` table with Prisma's checksum (SHA-256 of the file), so `prisma migrate deploy` can take
// over wherever its engine can be installed. Safe to run from several processes at once: SQLite takes the write
// lock per migration, PostgreSQL an advisory lock for the whole run.
export interface MigrationResult {
  applied: string[];
  warnings: string[];
}

interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export function migrationsDir(provider: DatabaseProvider): string {
  return join(process.cwd(), "prisma", "migrations", provider);
}

function readMigrations(provider: DatabaseProvider): Migration[] {
  const dir = migrationsDir(provider);
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(dir, entry.name, "migration.sql")))
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    });
}

function compare(migrations: Migration[], applied: Map<string, string>, warnings: string[]): Migration[] {
  for (const [name, checksum] of applied) {
    const local = migrations.find((m) => m.name === name);
    if (!local) warnings.push(`migration ${name} is applied in the database but missing here (newer code ran on it?)`);
    else if (local.checksum !== checksum) warnings.push(`migration ${name} was modified after it was applied`);
  }
  return migrations.filter((m) => !applied.has(m.name));
}

/**
 * Puts the database in WAL mode (it stays so). Changing the mode needs the database to itself and fails at once,
 * without the busy wait, while another process (a second server, a worker starting) has it open in a transaction:
 * tried again for a while then, and not tried at all when the mode is WAL already.
 */
function useWal(sqlite: Database.Database): void {
  whileBusy(
    () => {
      if (String(sqlite.pragma("journal_mode", { simple: true })).toLowerCase() !== "wal")
        sqlite.pragma("journal_mode = WAL");
    },
    { deadlineMs: 30_000, pauseMs: () => 50 },
  );
}

function migrateSqlite(url: string): MigrationResult {
  const file = sqliteFilePath(url);
  if (file !== ":memory:") mkdirSync(dirname(file), { recursive: true });
  const sqlite = new Database(file, { timeout: 30_000 });
  try {
    useWal(sqlite);
    sqlite.exec(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
      "id" TEXT PRIMARY KEY NOT NULL,
      "checksum" TEXT NOT NULL,
      "finished_at" DATETIME,
      "migration_name" TEXT NOT NULL,
      "logs" TEXT,
      "rolled_back_at" DATETIME,
      "started_at" DATETIME NOT NULL DEFAULT current_timestamp,
      "applied_steps_count" INTEGER UNSIGNED NOT NULL DEFAULT 0
    )`);
    const result: MigrationResult = { applied: [], warnings: [] };
    const appliedRows = (): Map<string, string> =>
      new Map(
        (
          sqlite
            .prepare(
              `SELECT migration_name, checksum FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
            )
            .all() as { migration_name: string; checksum: string }[]
        ).map((r) => [r.migration_name, r.checksum]),
      );
    const pending = compare(readMigrations("sqlite"), appliedRows(), result.warnings);
    for (const migration of pending) {
      const apply = sqlite.transaction(() => {
        // Another process may have applied it while this one waited for the lock.
        if (appliedRows().has(migration.name)) return;
        sqlite.exec(migration.sql);
        sqlite
          .prepare(
            `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, started_at, applied_steps_count)
             VALUES (?, ?, ?, ?, ?, 1)`,
          )
          .run(randomUUID(), migration.checksum, new Date().toISOString(), migration.name, new Date().toISOString());
        result.applied.push(migration.name);
      });
      apply.immediate();
    }
    return result;
  } finally {
    sqlite.close();
  }
}

const ADVISORY_LOCK_ID = 7_270_736_900;

async function migratePostgres(url: string): Promise<MigrationResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [ADVISORY_LOCK_ID]);
    await client.query(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
      "id" VARCHAR(36) PRIMARY KEY NOT NULL,
      "checksum" VARCHAR(64) NOT NULL,
      "finished_at" TIMESTAMPTZ,
      "migration_name" VARCHAR(255) NOT NULL,
      "logs" TEXT,
      "rolled_back_at" TIMESTAMPTZ,
      "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
      "applied_steps_count" INTEGER NOT NULL DEFAULT 0
    )`);
    const { rows } = await client.query<{ migration_name: string; checksum: string }>(
      `SELECT migration_name, checksum FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
    );
    const result: MigrationResult = { applied: [], warnings: [] };
    const pending = compare(
      readMigrations("postgresql"),
      new Map(rows.map((r) => [r.migration_name, r.checksum])),
      result.warnings,
    );
    for (const migration of pending) {
      await client.query("BEGIN");
      try {
        await client.query(migration.sql);
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, started_at, applied_steps_count)
           VALUES ($1, $2, now(), $3, now(), 1)`,
          [randomUUID(), migration.checksum, migration.name],
        );
        await client.query("COMMIT");
        result.applied.push(migration.name);
      } catch (error) {
        await client.query("ROLLBACK");
        throw new Error(`migration ${migration.name} failed: ${(error as Error).message}`);
      }
    }
    return result;
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [ADVISORY_LOCK_ID]).catch(() => undefined);
    await client.end();
  }
}

export async function migrate(url: string): Promise<MigrationResult> {
  return databaseProvider(url) === "sqlite" ? migrateSqlite(url) : migratePostgres(url);
}
