// Message retention measured in this process: settled messages written as the worker leaves them (8 SDRs, a part, a
// status webhook event and its attempt each), then pruned by pruneMessages as a worker's retention pass does.
//   npm run bench:retention -- [--db sqlite|postgresql] [--messages 50000] [--batch 500]
// Figures: messages pruned a second, each batch's duration from its first statement to its commit (how long it
// holds SQLite's write lock), and the latency of small write transactions made meanwhile by the same process (what
// a receipt or a heartbeat of the worker waits), against the same writes with nothing to prune. One old message in
// a thousand is still in flight: it must stay, and the walk passes it once.
import { cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { reloadEnv } from "../lib/env";
import { db, disconnectDb } from "../lib/db/client";
import { prepareDatabase } from "../lib/boot/prepare-database";
import { createAccount } from "../lib/accounts/manage-accounts";
import { provisionNumber } from "../lib/numbers/manage-numbers";
import { pruneMessages } from "../lib/retention/prune-messages";
import { createTestDatabase } from "../tests/helpers/test-database";
import { seedSettledMessages } from "../tests/helpers/settled-messages";
import { percentile } from "./figures";

const { values } = parseArgs({
  options: {
    db: { type: "string", default: "sqlite" },
    messages: { type: "string", default: "50000" },
    batch: { type: "string", default: "500" },
  },
});
if (values.db !== "sqlite" && values.db !== "postgresql") throw new Error("--db is sqlite or postgresql");
process.env.PARLEY_TEST_DB = values.db;
process.env.LOG_LEVEL ??= "fatal";
const count = Number(values.messages);
const batchSize = Number(values.batch);
const DAY = 86_400_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const spread = (times: number[]) => {
  const sorted = [...times].sort((a, b) => a - b);
  const f = (ms: number) => ms.toFixed(1);
  return `p50 ${f(percentile(sorted, 50))} ms, p99 ${f(percentile(sorted, 99))} ms, max ${f(sorted.at(-1) ?? NaN)} ms`;
};

/** Small write transactions, one every 20 ms, until `stop` says so: their latencies. */
async function probe(stop: () => boolean): Promise<number[]> {
  const times: number[] = [];
  const workerId = "bench:retention:probe";
  const row = { carrier: "simulator", state: "connected", since: new Date() };
  while (!stop()) {
    const started = performance.now();
    await db().$transaction([
      db().workerStatus.upsert({
        where: { workerId },
        create: { workerId, ...row, updatedAt: new Date() },
        update: { updatedAt: new Date() },
      }),
    ]);
    times.push(performance.now() - started);
    await sleep(20);
  }
  return times;
}

const database = await createTestDatabase();
process.env.DATABASE_URL = database.url;
reloadEnv();
await prepareDatabase();
try {
  const account = await createAccount({ name: "Retention bench" });
  const number = await provisionNumber({ accountId: account.id, number: "+14155550100", actor: "cli" });
  const seeding = performance.now();
  const ids = await seedSettledMessages({
    accountId: account.id,
    from: number.number,
    count,
    createdAt: new Date(Date.now() - 40 * DAY),
  });
  const inFlight = ids.filter((_, i) => i % 1000 === 999);
  await db().message.updateMany({ where: { id: { in: inFlight } }, data: { status: "sent" } });
  const seeded = performance.now() - seeding;

  let quietDone = false;
  const quietProbe = probe(() => quietDone);
  await sleep(2000);
  quietDone = true;
  const quiet = await quietProbe;

  const batches: number[] = [];
  let pruning = true;
  const busyProbe = probe(() => !pruning);
  const started = performance.now();
  const result = await pruneMessages(new Date(Date.now() - 30 * DAY), {
    batchSize,
    onBatch: (ms) => batches.push(ms),
  });
  const elapsed = performance.now() - started;
  pruning = false;
  const busy = await busyProbe;
  const left = await db().message.count();

  console.log(
    `retention bench: ${values.db}, ${count} messages seeded in ${(seeded / 1000).toFixed(1)} s, batch ${batchSize}, ` +
      `${cpus().length} cores, load ${loadavg()[0]!.toFixed(1)}`,
  );
  console.log(
    `  pruned ${result.messages} messages in ${(elapsed / 1000).toFixed(1)} s (${Math.round(
      result.messages / (elapsed / 1000),
    )}/s, pauses included) in ${result.batches} batches; ${left} left (in flight: ${inFlight.length})`,
  );
  console.log(`  batch duration (write lock held): ${spread(batches)}`);
  console.log(`  a small write transaction of the same process: quiet ${spread(quiet)}; while pruning ${spread(busy)}`);
  if (left !== inFlight.length) throw new Error(`expected ${inFlight.length} messages left, found ${left}`);
} finally {
  await disconnectDb();
  await database.drop();
}
