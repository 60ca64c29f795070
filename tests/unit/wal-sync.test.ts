import { mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import Database from "better-sqlite3";
import { closeWalSyncs, WalSync, walSyncOf } from "../../lib/db/wal-sync";

// The write transactions of lib/db/steps.ts are answered after a sync of the WAL that began after their commit. The
// disk's sync is held here, to see which callers a sync in flight may answer.
describe("the WAL's sync after commits", () => {
  const dir = mkdtempSync(join(tmpdir(), "parley-wal-sync-"));
  const wal = join(dir, "parley.db-wal");
  writeFileSync(wal, "");
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("answers a commit made during a sync only after the next sync, shared by every such commit", async () => {
    const held: ((error: NodeJS.ErrnoException | null) => void)[] = [];
    const walSync = new WalSync(wal, (_fd, done) => held.push(done));
    const answered: string[] = [];
    const first = walSync.sync().then(() => answered.push("first"));
    await new Promise((resolve) => setImmediate(resolve));
    expect(held).toHaveLength(1);
    // Two more commits while the first sync runs: it may have begun before them.
    const second = walSync.sync().then(() => answered.push("second"));
    const third = walSync.sync().then(() => answered.push("third"));
    await new Promise((resolve) => setImmediate(resolve));
    expect(held).toHaveLength(1);
    held[0]!(null);
    await first;
    await new Promise((resolve) => setImmediate(resolve));
    expect(answered).toEqual(["first"]);
    // One sync, begun after the first ended, answers both.
    expect(held).toHaveLength(2);
    held[1]!(null);
    await Promise.all([second, third]);
    expect(answered).toEqual(["first", "second", "third"]);
    // With nothing in flight, a commit's sync starts at once.
    const fourth = walSync.sync();
    expect(held).toHaveLength(3);
    held[2]!(null);
    await fourth;
    await walSync.close();
  });

  it("syncs the WAL beside the database's real file when it is opened through a symbolic link", async () => {
    const real = join(dir, "real.db");
    const link = join(dir, "link.db");
    new Database(real).close();
    symlinkSync(real, link);
    const connection = new Database(link);
    connection.pragma("journal_mode = WAL");
    connection.exec("CREATE TABLE t (x)");
    const handle = { connection, prepared: (sql: string) => connection.prepare(sql) };
    expect(walSyncOf(handle)?.walPath).toBe(`${realpathSync(real)}-wal`);
    await walSyncOf(handle)!.sync();
    // A database in memory has no WAL: its commits sync themselves.
    const memory = new Database(":memory:");
    expect(walSyncOf({ connection: memory, prepared: (sql: string) => memory.prepare(sql) })).toBeNull();
    await closeWalSyncs();
    connection.close();
    memory.close();
  });
});
