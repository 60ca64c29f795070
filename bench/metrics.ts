// What a scrape of GET /metrics costs as the queues grow: the database gauges' read (one grouped query over the
// waiting messages, the webhook backlog's aggregate, the workers' heartbeats) and the rendering of the text.
//   npm run bench:metrics -- [--db sqlite|postgresql] [--queued 1000,100000] [--numbers 1000] [--runs 20]
// Each size is a fresh database with `--queued` waiting messages spread over `--numbers` numbers (and as many
// pending webhook events; on PostgreSQL vacuumed and analysed, as autovacuum would); each figure is the median and
// the worst of `--runs` scrapes. `loopMs` is how much of the read kept this process's event loop busy (its event-loop
// utilisation's active time): what a server's requests wait for while it is scraped.
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { reloadEnv } from "../lib/env";
import { db, disconnectDb } from "../lib/db/client";
import { prepareDatabase } from "../lib/boot/prepare-database";
import { createAccount } from "../lib/accounts/manage-accounts";
import { uuidv4, uuidv7 } from "../lib/db/ids";
import { metrics } from "../lib/metrics/define-metrics";
import { readDatabaseGauges } from "../lib/metrics/read-database-gauges";
import { createTestDatabase } from "../tests/helpers/test-database";

const { values } = parseArgs({
  options: {
    db: { type: "string", default: "sqlite" },
    queued: { type: "string", default: "1000,100000" },
    numbers: { type: "string", default: "1000" },
    runs: { type: "string", default: "20" },
  },
});
if (values.db !== "sqlite" && values.db !== "postgresql") throw new Error("--db is sqlite or postgresql");
process.env.PARLEY_TEST_DB = values.db;
process.env.LOG_LEVEL ??= "fatal";
const numbers = Number(values.numbers);
const runs = Number(values.runs);

const ms = (value: number) => Math.round(value * 10) / 10;

async function fill(queued: number): Promise<void> {
  const accountId = (await createAccount({ name: "bench" })).id;
  const now = Date.now();
  for (let offset = 0; offset < queued; offset += 5000) {
    const count = Math.min(5000, queued - offset);
    const rows = Array.from({ length: count }, (_, i) => ({
      id: uuidv7(now - (offset + i)),
      accountId,
      direction: "outbound",
      messageType: "sms",
      fromNumber: `1202555${String((offset + i) % numbers).padStart(4, "0")}`,
      toNumber: "14155550123",
      body: "Your code is 4711",
      numSegments: 1,
      encoding: "GSM7",
      status: "queued",
      createdAt: new Date(now - (offset + i)),
    }));
    await db().message.createMany({ data: rows });
    await db().webhookEvent.createMany({
      data: rows.map((row) => ({
        id: uuidv4(),
        accountId,
        messageId: row.id,
        kind: "message-status",
        payload: "{}",
        status: "pending",
        nextAttemptAt: new Date(now + 3600_000),
        retryFrom: new Date(now),
        createdAt: row.createdAt,
      })),
    });
  }
}

for (const queued of values.queued.split(",").map(Number)) {
  const database = await createTestDatabase();
  process.env.DATABASE_URL = database.url;
  reloadEnv();
  await prepareDatabase();
  await fill(queued);
  // What autovacuum does to a table soon after a bulk insert: statistics, and the visibility map index-only scans use.
  if (values.db === "postgresql") await db().$executeRawUnsafe(`VACUUM ANALYZE "Message", "WebhookEvent"`);
  const read: number[] = [];
  const loop: number[] = [];
  const render: number[] = [];
  let bytes = 0;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const before = performance.eventLoopUtilization();
    await readDatabaseGauges();
    loop.push(performance.eventLoopUtilization(before).active);
    const t1 = performance.now();
    const text = await metrics().serverRegistry.metrics();
    read.push(t1 - t0);
    render.push(performance.now() - t1);
    bytes = text.length;
  }
  const sorted = (list: number[]) => [...list].sort((a, b) => a - b);
  const median = (list: number[]) => sorted(list)[Math.floor(list.length / 2)]!;
  const worst = (list: number[]) => sorted(list).at(-1)!;
  console.log(
    JSON.stringify({
      db: values.db,
      queued,
      numbers: Math.min(numbers, queued),
      readMs: { median: ms(median(read)), worst: ms(worst(read)) },
      loopMs: { median: ms(median(loop)), worst: ms(worst(loop)) },
      renderMs: { median: ms(median(render)), worst: ms(worst(render)) },
      bytes,
    }),
  );
  await disconnectDb();
  await database.drop();
}
