import { env, databaseProvider } from "../env";
import { logger } from "../log";
import { processSingleton } from "../process-singletons";

// Every writer of SDRs calls announceChanges() after it wrote some. It is only a wake-up: the change feed of each
// server reads what changed from the SDR table (the one ordered log), so a lost announcement costs latency (one
// poll interval), never an event. In a server the feed polls at once (and the other servers are told through the
// socket.io adapter); in a worker or the CLI, when REDIS_URL or the PostgreSQL adapter is configured, the servers
// are told through the matching socket.io emitter.
export const POKE_EVENT = "parley:changes";

interface Announcer {
  announce(): void;
  close(): Promise<void>;
}

const holder = processSingleton("announcer", (): { __parleyAnnouncer?: Announcer | null } => ({}));

/** The server installs its own announcer (its feed and its adapter); other processes get an emitter, or nothing. */
export function installAnnouncer(announcer: Announcer): void {
  holder.__parleyAnnouncer = announcer;
}

export function announceChanges(): void {
  if (holder.__parleyAnnouncer === undefined) holder.__parleyAnnouncer = emitterAnnouncer();
  holder.__parleyAnnouncer?.announce();
}

/** Closes an emitter's connection (the CLI, before it exits). */
export async function closeAnnouncer(): Promise<void> {
  const announcer = holder.__parleyAnnouncer;
  holder.__parleyAnnouncer = undefined;
  await announcer?.close();
}

/** Which fan-out the configuration asks for: Redis when REDIS_URL is set, else PostgreSQL's when enabled. */
export function fanOutKind(): "redis" | "postgresql" | null {
  const e = env();
  if (e.REDIS_URL) return "redis";
  if (e.REALTIME_PG_ADAPTER && databaseProvider() === "postgresql") return "postgresql";
  return null;
}

// Coalesces bursts: at most one announcement per `delayMs`, sent that long (by default a few milliseconds) after the
// first call so that the transaction that called it has committed by then.
function throttled(send: () => void, delayMs = 10): () => void {
  let timer: NodeJS.Timeout | null = null;
  return () => {
    if (timer) return;
    timer = setTimeout(() => {
      timer = null;
      send();
    }, delayMs);
    timer.unref?.();
  };
}

function emitterAnnouncer(): Announcer | null {
  const kind = fanOutKind();
  if (!kind) return null;
  let emit: ((event: string) => void) | null = null;
  let close: () => Promise<void> = async () => {};
  const ready = (async () => {
    if (kind === "redis") {
      const { createClient } = await import("redis");
      const { Emitter } = await import("@socket.io/redis-emitter");
      const client = createClient({ url: env().REDIS_URL });
      client.on("error", (error: unknown) => logger().warn({ err: error }, "realtime emitter: Redis error"));
      await client.connect();
      const emitter = new Emitter(client);
      emit = (event) => emitter.serverSideEmit(event);
      close = async () => void (await client.quit().catch(() => undefined));
    } else {
      const pg = (await import("pg")).default;
      const { Emitter } = await import("@socket.io/postgres-emitter");
      const pool = new pg.Pool({ connectionString: env().DATABASE_URL, max: 1 });
      pool.on("error", (error) => logger().warn({ err: error }, "realtime emitter: PostgreSQL error"));
      const emitter = new Emitter(pool);
      emit = (event) => emitter.serverSideEmit(event);
      close = async () => void (await pool.end().catch(() => undefined));
    }
  })().catch((error: unknown) => {
    logger().warn({ err: error }, "realtime emitter unavailable; servers still see changes by polling");
  });
  const send = throttled(() => {
    void ready.then(() => emit?.(POKE_EVENT));
  });
  return {
    announce: send,
    close: async () => {
      await ready;
      // Let a pending announcement go out first.
      await new Promise((resolve) => setTimeout(resolve, 30));
      await close();
    },
  };
}

export { throttled as throttleAnnouncements };
