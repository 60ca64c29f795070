import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reloadEnv } from "../../lib/env";
import { prepareDatabase } from "../../lib/boot/prepare-database";
import { db, disconnectDb } from "../../lib/db/client";
import { uuidv4 } from "../../lib/db/ids";
import { pruneWebhookEvents } from "../../lib/webhooks/prune-webhook-events";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database";

// The outbox and the attempt log are pruned: finished events past retention go with their attempts; pending ones
// and recent ones stay.
let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
  process.env.DATABASE_URL = database.url;
  reloadEnv();
  await prepareDatabase();
});

afterAll(async () => {
  await disconnectDb();
  await database?.drop();
});

const DAY = 86_400_000;

async function event(status: string, ageDays: number): Promise<string> {
  const id = `msg_${uuidv4()}`;
  const at = new Date(Date.now() - ageDays * DAY);
  await db().webhookEvent.create({
    data: {
      id,
      accountId: "acct",
      messageId: uuidv4(),
      kind: "message.status",
      payload: "{}",
      status,
      attempts: 1,
      nextAttemptAt: at,
      retryFrom: at,
      createdAt: at,
    },
  });
  await db().webhookAttempt.create({
    data: { eventId: id, accountId: "acct", at, url: "https://example.com/hook", httpStatus: 200, latencyMs: 5 },
  });
  return id;
}

describe("webhook retention", () => {
  it("deletes delivered and failed events older than the cut-off, with their attempts, and keeps the rest", async () => {
    const oldDelivered = await Promise.all(Array.from({ length: 3 }, () => event("delivered", 40)));
    const oldFailed = await event("failed", 31);
    const recentDelivered = await event("delivered", 2);
    const oldPending = await event("pending", 40);

    // Two at a time: the run goes on until a batch finds fewer than it may take.
    expect(await pruneWebhookEvents(new Date(Date.now() - 30 * DAY), { batchSize: 2 })).toEqual({
      deleted: 4,
      batches: 3,
    });

    const left = (await db().webhookEvent.findMany({ select: { id: true } })).map((e) => e.id).sort();
    expect(left).toEqual([recentDelivered, oldPending].sort());
    const attempts = (await db().webhookAttempt.findMany({ select: { eventId: true } })).map((a) => a.eventId).sort();
    expect(attempts).toEqual([recentDelivered, oldPending].sort());
    for (const id of [...oldDelivered, oldFailed]) expect(attempts).not.toContain(id);
    expect((await pruneWebhookEvents(new Date(Date.now() - 30 * DAY))).deleted).toBe(0);
  });
});
