-- DropIndex
DROP INDEX "Message_accountId_referenceId_idx";

-- CreateIndex
CREATE INDEX "Message_accountId_referenceId_createdAt_idx" ON "Message"("accountId", "referenceId", "createdAt");

-- CreateIndex
CREATE INDEX "Message_accountId_direction_createdAt_idx" ON "Message"("accountId", "direction", "createdAt");

-- CreateIndex
CREATE INDEX "Message_accountId_messageType_createdAt_idx" ON "Message"("accountId", "messageType", "createdAt");

-- CreateIndex
CREATE INDEX "Message_accountId_numSegments_createdAt_idx" ON "Message"("accountId", "numSegments", "createdAt");


-- The body filter's index: every body's trigrams (case-folded), keyed by the message's rowid. Contentless: the
-- bodies are not stored twice; listings read the candidates' rows from "Message" and test them exactly. Filled in
-- the background by lib/db/sqlite-body-indexer-thread.mjs up to "indexedUpTo" (a send's commit does not pay for
-- it); listings read the rows above that mark directly.
CREATE VIRTUAL TABLE "MessageBodySearch" USING fts5("body", content='', contentless_delete=1, tokenize='trigram');

-- "indexedId": the message at the mark, which tells the indexer when rowids were renumbered (VACUUM, a restored
-- VACUUM INTO copy): it then builds the index again.
CREATE TABLE "MessageBodySearchState" (
    "id" INTEGER NOT NULL PRIMARY KEY,
    "indexedUpTo" INTEGER NOT NULL,
    "indexedId" TEXT
);

INSERT INTO "MessageBodySearchState" ("id", "indexedUpTo", "indexedId") VALUES (1, 0, NULL);

-- A deleted message leaves the index. If it was the newest, SQLite may give its rowid to the next message: the mark
-- comes back down so that message is indexed too.
CREATE TRIGGER "Message_body_search_delete" AFTER DELETE ON "Message" BEGIN
  DELETE FROM "MessageBodySearch" WHERE rowid = old.rowid;
  UPDATE "MessageBodySearchState" SET "indexedUpTo" = (SELECT coalesce(max(rowid), 0) FROM "Message"),
    "indexedId" = (SELECT "id" FROM "Message" WHERE rowid = (SELECT max(rowid) FROM "Message"))
  WHERE "id" = 1 AND "indexedUpTo" > (SELECT coalesce(max(rowid), 0) FROM "Message");
END;

CREATE TRIGGER "Message_body_search_update" AFTER UPDATE OF "body" ON "Message" BEGIN
  DELETE FROM "MessageBodySearch" WHERE rowid = old.rowid;
  INSERT INTO "MessageBodySearch" (rowid, "body")
  SELECT new.rowid, new."body" WHERE new.rowid <= (SELECT "indexedUpTo" FROM "MessageBodySearchState" WHERE "id" = 1);
END;
