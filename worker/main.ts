// The delivery worker on its own: `npm run worker` (start the servers with PARLEY_WORKER=false). Several may run
// against one PostgreSQL database; they share the pacing state there and never send the same part twice.
import { bootstrapEnv } from "../lib/env";
import { logger } from "../lib/log";
import { prepareDatabase } from "../lib/boot/prepare-database";
import { disconnectDb } from "../lib/db/client";
import { startConfiguredWorker } from "../lib/delivery/start-worker";
import { startConfiguredDispatcher } from "../lib/webhooks/start-dispatcher";
import { startConfiguredRetention } from "../lib/retention/start-retention";
import { stopOnSignals } from "../lib/boot/stop-on-signals";

async function main(): Promise<void> {
  bootstrapEnv();
  await prepareDatabase();
  const worker = await startConfiguredWorker();
  const webhooks = startConfiguredDispatcher();
  const retention = startConfiguredRetention();
  if (process.env.PARLEY_READY_FD === "stdout") process.stdout.write(`PARLEY_WORKER_READY ${worker.id}\n`);
  // SIGTERM: the worker gives its numbers and the simulator's owed receipts back, the dispatcher lets its posts in
  // flight finish, and the process exits within 10 s whatever still hangs (an event left unrecorded is retried
  // after its lease).
  stopOnSignals({
    log: logger().child({ component: "worker-process" }),
    parts: { worker: () => worker.stop(), webhooks: () => webhooks.stop(), retention: () => retention.stop() },
    last: disconnectDb,
  });
}

main().catch((error) => {
  // Said first, and plainly: when the configuration itself is invalid, the logger cannot start either.
  process.stderr.write(`Parley worker could not start: ${(error as Error).message}\n`);
  try {
    logger().fatal({ err: error }, "worker failed to start");
  } catch {
    // the configuration error already said it all
  }
  process.exit(1);
});
