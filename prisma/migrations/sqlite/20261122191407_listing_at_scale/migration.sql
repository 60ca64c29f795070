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


-- The body filter's index: every body's trigrams (case-folded), keyed by the message's rowid and kept by triggers.
-- Contentless: the bodies are not stored twice; listings read the candidates' rows from "Message" and test them.
CREATE VIRTUAL TABLE "MessageBodySearch" USING fts5("body", content='', contentless_delete=1, tokenize='trigram');

CREATE TRIGGER "Message_body_search_insert" AFTER INSERT ON "Message" BEGIN
  INSERT INTO "MessageBodySearch" (rowid, "body") VALUES (new.rowid, new."body");
END;

CREATE TRIGGER "Message_body_search_delete" AFTER DELETE ON "Message" BEGIN
  DELETE FROM "MessageBodySearch" WHERE rowid = old.rowid;
END;

CREATE TRIGGER "Message_body_search_update" AFTER UPDATE OF "body" ON "Message" BEGIN
  DELETE FROM "MessageBodySearch" WHERE rowid = old.rowid;
  INSERT INTO "MessageBodySearch" (rowid, "body") VALUES (new.rowid, new."body");
END;

INSERT INTO "MessageBodySearch" (rowid, "body") SELECT rowid, "body" FROM "Message";
