-- SQLite's body index changed (detail=none); PostgreSQL's pg_trgm index on lower(body) is unchanged. This migration
-- keeps the two providers' histories in step.
SELECT 1;
