-- SQLite's automatic-bulk count moved to an append-only log ("SameTextLog"); PostgreSQL still counts in
-- "SameTextCount" (lib/db/write-batch-pg.ts). This migration keeps the two providers' histories in step.
SELECT 1;
