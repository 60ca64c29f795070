-- Every account's messages counted by hour (UTC, "2026-11-27T09"), direction, type and status, kept by triggers in
-- the transaction of each write, whichever code path makes it. The listing's `total` for those filters and its deep
-- offset pages read these counts instead of counting rows (lib/messaging/message-tally.ts).
--
-- Writes append their changes to "MessageTallyDelta" (one row per statement and key, no row locked, so concurrent
-- sends and workers never wait on each other or deadlock over a count); lib/messaging/message-tally-queries.ts folds
-- them into "MessageTally" every few seconds, in one statement. A count reads both tables in one snapshot.
CREATE TABLE "MessageTally" (
    "accountId" TEXT NOT NULL,
    "hour" TEXT NOT NULL,
    "direction" TEXT NOT NULL,
    "messageType" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "n" BIGINT NOT NULL,
    PRIMARY KEY ("accountId", "hour", "direction", "messageType", "status")
);

CREATE TABLE "MessageTallyDelta" (
    "accountId" TEXT NOT NULL,
    "hour" TEXT NOT NULL,
    "direction" TEXT NOT NULL,
    "messageType" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "n" BIGINT NOT NULL
);

CREATE INDEX "MessageTallyDelta_accountId_hour_idx" ON "MessageTallyDelta" ("accountId", "hour");

INSERT INTO "MessageTally" ("accountId", "hour", "direction", "messageType", "status", "n")
SELECT "accountId", to_char("createdAt", 'YYYY-MM-DD"T"HH24'), "direction", "messageType", "status", count(*)
FROM "Message" GROUP BY 1, 2, 3, 4, 5;

CREATE FUNCTION "message_tally_insert"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "MessageTallyDelta" ("accountId", "hour", "direction", "messageType", "status", "n")
  SELECT "accountId", to_char("createdAt", 'YYYY-MM-DD"T"HH24'), "direction", "messageType", "status", count(*)
  FROM new_rows GROUP BY 1, 2, 3, 4, 5;
  RETURN NULL;
END $$;

CREATE FUNCTION "message_tally_delete"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "MessageTallyDelta" ("accountId", "hour", "direction", "messageType", "status", "n")
  SELECT "accountId", to_char("createdAt", 'YYYY-MM-DD"T"HH24'), "direction", "messageType", "status", -count(*)
  FROM old_rows GROUP BY 1, 2, 3, 4, 5;
  RETURN NULL;
END $$;

-- Only the keys an update moved: most updates (delivery progress, receipts' times) move none and write nothing.
CREATE FUNCTION "message_tally_update"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "MessageTallyDelta" ("accountId", "hour", "direction", "messageType", "status", "n")
  SELECT "accountId", "hour", "direction", "messageType", "status", sum("n")
  FROM (
    SELECT "accountId", to_char("createdAt", 'YYYY-MM-DD"T"HH24') AS "hour", "direction", "messageType", "status",
      1 AS "n"
    FROM new_rows
    UNION ALL
    SELECT "accountId", to_char("createdAt", 'YYYY-MM-DD"T"HH24'), "direction", "messageType", "status", -1
    FROM old_rows
  ) moved
  GROUP BY 1, 2, 3, 4, 5
  HAVING sum("n") <> 0;
  RETURN NULL;
END $$;

CREATE TRIGGER "Message_tally_insert" AFTER INSERT ON "Message"
REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "message_tally_insert"();

CREATE TRIGGER "Message_tally_delete" AFTER DELETE ON "Message"
REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "message_tally_delete"();

CREATE TRIGGER "Message_tally_update" AFTER UPDATE ON "Message"
REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "message_tally_update"();
