import { db } from "../db/client";
import type { Carrier, CarrierState } from "../carriers/carrier";
import { logger } from "../log";

// Each delivery worker writes its carrier link's state to WorkerStatus, so that the portal's dashboard shows it
// whichever process runs the worker (the server itself, or `npm run worker` elsewhere). The state is read every
// second and written when it changes, and at least every WRITE_EVERY_MS; a row older than STALE_AFTER_MS is a worker
// that is gone (killed, or its machine lost).

const CHECK_EVERY_MS = 1_000;
const WRITE_EVERY_MS = 5_000;
export const STALE_AFTER_MS = 30_000;
/** Rows of workers gone this long are deleted when a worker starts, so restarts do not pile rows up. */
const FORGET_AFTER_MS = 24 * 3600_000;

export interface WorkerHeartbeat {
  stop(): Promise<void>;
}

function stateOf(carrier: Carrier): CarrierState {
  return carrier.connectionState?.() ?? { state: "connected", detail: carrier.name, since: new Date(0) };
}

async function write(workerId: string, carrier: string, state: CarrierState, now: Date): Promise<void> {
  const row = { carrier, state: state.state, detail: state.detail.slice(0, 500), since: state.since, updatedAt: now };
  await db().workerStatus.upsert({ where: { workerId }, create: { workerId, ...row }, update: row });
}

/** Starts writing the worker's heartbeat (the first write happens before this returns). */
export async function startHeartbeat(workerId: string, carrier: Carrier): Promise<WorkerHeartbeat> {
  const log = logger().child({ component: "heartbeat" });
  let last = { key: "", at: 0 };
  let writing: Promise<void> | null = null;
  const beat = async () => {
    const state = stateOf(carrier);
    const key = `${state.state}|${state.detail}|${state.since.getTime()}`;
    const now = Date.now();
    if (key === last.key && now - last.at < WRITE_EVERY_MS) return;
    await write(workerId, carrier.name, state, new Date(now));
    last = { key, at: now };
  };
  await db()
    .workerStatus.deleteMany({ where: { updatedAt: { lt: new Date(Date.now() - FORGET_AFTER_MS) } } })
    .catch((error) => log.warn({ err: error }, "could not delete old worker heartbeats"));
  await beat().catch((error) => log.warn({ err: error }, "could not write the worker heartbeat"));
  const timer = setInterval(() => {
    if (writing) return;
    writing = beat()
      .catch((error) => log.warn({ err: error }, "could not write the worker heartbeat"))
      .finally(() => (writing = null));
  }, CHECK_EVERY_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await writing;
      // A worker that stops cleanly is gone at once, not 30 s later.
      await db()
        .workerStatus.deleteMany({ where: { workerId } })
        .catch((error) => log.warn({ err: error }, "could not remove the worker heartbeat"));
    },
  };
}

export interface LiveWorker {
  workerId: string;
  carrier: string;
  state: CarrierState["state"];
  detail: string;
  since: string;
  updatedAt: string;
}

/** The workers that wrote a heartbeat within the last STALE_AFTER_MS, most recent first. */
export async function liveWorkers(now = new Date()): Promise<LiveWorker[]> {
  const rows = await db().workerStatus.findMany({
    where: { updatedAt: { gte: new Date(now.getTime() - STALE_AFTER_MS) } },
    orderBy: [{ updatedAt: "desc" }, { workerId: "asc" }],
    take: 50,
  });
  return rows.map((row) => ({
    workerId: row.workerId,
    carrier: row.carrier,
    state: row.state as CarrierState["state"],
    detail: row.detail,
    since: row.since.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  }));
}
