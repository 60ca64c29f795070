-- Every account's messages counted by hour (UTC, "2026-11-27T09"), direction, type and status, kept by triggers in
-- the transaction of each write, whichever code path makes it. The listing's `total` for those filters and its deep
-- offset pages read these counts instead of counting rows (lib/messaging/message-tally.ts).
CREATE TABLE "MessageTally" (
    "accountId" TEXT NOT NULL,
    "hour" TEXT NOT NULL,
    "direction" TEXT NOT NULL,
    "messageType" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "n" INTEGER NOT NULL,
    PRIMARY KEY ("accountId", "hour", "direction", "messageType", "status")
) WITHOUT ROWID;

INSERT INTO "MessageTally" ("accountId", "hour", "direction", "messageType", "status", "n")
SELECT "accountId", substr("createdAt", 1, 13), "direction", "messageType", "status", count(*)
FROM "Message" GROUP BY 1, 2, 3, 4, 5;

CREATE TRIGGER "Message_tally_insert" AFTER INSERT ON "Message" BEGIN
  INSERT INTO "MessageTally" ("accountId", "hour", "direction", "messageType", "status", "n")
  VALUES (new."accountId", substr(new."createdAt", 1, 13), new."direction", new."messageType", new."status", 1)
  ON CONFLICT DO UPDATE SET "n" = "n" + 1;
END;

CREATE TRIGGER "Message_tally_delete" AFTER DELETE ON "Message" BEGIN
  UPDATE "MessageTally" SET "n" = "n" - 1
  WHERE "accountId" = old."accountId" AND "hour" = substr(old."createdAt", 1, 13) AND "direction" = old."direction"
    AND "messageType" = old."messageType" AND "status" = old."status";
END;

CREATE TRIGGER "Message_tally_update" AFTER UPDATE OF "accountId", "createdAt", "direction", "messageType", "status"
ON "Message"
WHEN old."accountId" IS NOT new."accountId" OR substr(old."createdAt", 1, 13) IS NOT substr(new."createdAt", 1, 13)
  OR old."direction" IS NOT new."direction" OR old."messageType" IS NOT new."messageType"
  OR old."status" IS NOT new."status"
BEGIN
  UPDATE "MessageTally" SET "n" = "n" - 1
  WHERE "accountId" = old."accountId" AND "hour" = substr(old."createdAt", 1, 13) AND "direction" = old."direction"
    AND "messageType" = old."messageType" AND "status" = old."status";
  INSERT INTO "MessageTally" ("accountId", "hour", "direction", "messageType", "status", "n")
  VALUES (new."accountId", substr(new."createdAt", 1, 13), new."direction", new."messageType", new."status", 1)
  ON CONFLICT DO UPDATE SET "n" = "n" + 1;
END;
