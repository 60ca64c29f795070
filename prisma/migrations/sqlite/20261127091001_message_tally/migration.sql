-- Every account's messages counted by hour (UTC, "2026-11-27T09"), direction, type and status. The listing's `total`
-- for those filters and its deep offset pages read these counts instead of counting rows
-- (lib/messaging/message-tally.ts).
--
-- A new message is counted in the background (lib/db/sqlite-body-indexer-thread.mjs, beside the body index) up to
-- "talliedUpTo", not by a trigger on insert, which would cost the send path's multi-row inserts half their rate;
-- counts read the rows above the mark directly. Status changes and deletes of messages below the mark move the
-- counts in their own transaction (triggers below). "talliedId", the message at the mark, tells the thread when
-- rowids were renumbered (VACUUM): it then counts again from the start.
CREATE TABLE "MessageTally" (
    "accountId" TEXT NOT NULL,
    "hour" TEXT NOT NULL,
    "direction" TEXT NOT NULL,
    "messageType" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "n" INTEGER NOT NULL,
    PRIMARY KEY ("accountId", "hour", "direction", "messageType", "status")
) WITHOUT ROWID;

CREATE TABLE "MessageTallyState" (
    "id" INTEGER NOT NULL PRIMARY KEY,
    "talliedUpTo" INTEGER NOT NULL,
    "talliedId" TEXT
);

INSERT INTO "MessageTallyState" ("id", "talliedUpTo", "talliedId") VALUES (1, 0, NULL);

-- A deleted message below the mark leaves the counts. If it was the newest, SQLite may give its rowid to the next
-- message: the mark comes back down so that message is counted too.
CREATE TRIGGER "Message_tally_delete" AFTER DELETE ON "Message"
WHEN old.rowid <= (SELECT "talliedUpTo" FROM "MessageTallyState" WHERE "id" = 1)
BEGIN
  UPDATE "MessageTally" SET "n" = "n" - 1
  WHERE "accountId" = old."accountId" AND "hour" = substr(old."createdAt", 1, 13) AND "direction" = old."direction"
    AND "messageType" = old."messageType" AND "status" = old."status";
  UPDATE "MessageTallyState" SET "talliedUpTo" = (SELECT coalesce(max(rowid), 0) FROM "Message"),
    "talliedId" = (SELECT "id" FROM "Message" WHERE rowid = (SELECT max(rowid) FROM "Message"))
  WHERE "id" = 1 AND "talliedUpTo" > (SELECT coalesce(max(rowid), 0) FROM "Message");
END;

CREATE TRIGGER "Message_tally_update" AFTER UPDATE OF "accountId", "createdAt", "direction", "messageType", "status"
ON "Message"
WHEN old.rowid <= (SELECT "talliedUpTo" FROM "MessageTallyState" WHERE "id" = 1)
  AND (old."accountId" IS NOT new."accountId" OR substr(old."createdAt", 1, 13) IS NOT substr(new."createdAt", 1, 13)
    OR old."direction" IS NOT new."direction" OR old."messageType" IS NOT new."messageType"
    OR old."status" IS NOT new."status")
BEGIN
  UPDATE "MessageTally" SET "n" = "n" - 1
  WHERE "accountId" = old."accountId" AND "hour" = substr(old."createdAt", 1, 13) AND "direction" = old."direction"
    AND "messageType" = old."messageType" AND "status" = old."status";
  INSERT INTO "MessageTally" ("accountId", "hour", "direction", "messageType", "status", "n")
  VALUES (new."accountId", substr(new."createdAt", 1, 13), new."direction", new."messageType", new."status", 1)
  ON CONFLICT DO UPDATE SET "n" = "n" + 1;
END;
