-- Automatic bulk's count on SQLite: an append-only log of (account, text, second, destinations) that every send
-- writer of the file appends to and folds into a window it keeps in memory (lib/db/same-text-window.mjs), in place
-- of "SameTextCount", whose key by text made each send dirty a page of its own in its index under the write lock.
-- AUTOINCREMENT: ids never go back, even once every row was pruned, so a writer's "rows after the last one I read"
-- misses none. The window's rows carry over; "SameTextCount" stays empty on SQLite (PostgreSQL still counts in it).
-- A server of the version before still counts in "SameTextCount": until every process on the file runs this version,
-- the two count apart. Restart them together (one host: a SQLite file is not shared across machines).
CREATE TABLE "SameTextLog" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "accountId" TEXT NOT NULL,
    "textHash" TEXT NOT NULL,
    "second" INTEGER NOT NULL,
    "count" INTEGER NOT NULL
);

-- Pruning: the rows of seconds before the window (appended about in order, so the index's writes are at its end).
CREATE INDEX "SameTextLog_second_idx" ON "SameTextLog"("second");

INSERT INTO "SameTextLog" ("accountId", "textHash", "second", "count")
    SELECT "accountId", "textHash", "second", "count" FROM "SameTextCount" ORDER BY "second";

DELETE FROM "SameTextCount";
