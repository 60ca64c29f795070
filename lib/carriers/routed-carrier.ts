import type { Logger } from "pino";
import type { Carrier, CarrierEvents, CarrierState, Departure, OutboundPart, SubmitResult } from "./carrier";
import type { OpenConnection } from "./connections/manage-connections";
import { loadRoutes, routesStamp, saveConnectionStates, type ConnectionHealth } from "./route-queries";

/**
 * The worker's one carrier, routing each part by its `from` number: to the connection the number is routed to
 * (PhoneNumber.carrierId), or to the deployment's default connection (the environment's CARRIER) when it has none.
 * The decisions:
 * - Whether routes changed is asked at most every `checkMs` (250 ms) while parts leave, by one small read (a stamp
 *   of the connections, which a number's routing touches); they are read again when it changed, and every 30 s
 *   whatever. A number moved in the portal sends through its new connection from its next part. A connection
 *   changed (credentials, settings) is rebuilt; its old carrier is stopped once the parts it holds are answered.
 * - A disabled connection sends nothing: its parts get a temporary refusal and wait, retried as after any
 *   temporary error, until it is enabled or the number is routed elsewhere.
 * - Each connection's health (up, down, connecting, and why) is written to its row every `healthMs`, for the
 *   dashboard and /metrics of its own account.
 */
export interface RoutedCarrierOptions {
  fallback: Carrier;
  /** Builds the carrier of a connection (an HTTP provider, an SMPP peer, the simulator). */
  build: (connection: OpenConnection) => Carrier | Promise<Carrier>;
  log: Logger;
  checkMs?: number;
  healthMs?: number;
}

interface Active {
  connection: OpenConnection;
  carrier: Promise<Carrier>;
  inFlight: number;
}

/** What a connection's carrier is built from: a change of any of it builds the carrier again. */
function fingerprint(connection: OpenConnection): string {
  return JSON.stringify([connection.type, connection.settings, connection.credentials]);
}

export class RoutedCarrier implements Carrier {
  readonly name: string;
  private events: CarrierEvents | null = null;
  private routes = new Map<string, string>();
  private connections = new Map<string, OpenConnection>();
  private active = new Map<string, Active>();
  private loadedAt = -Infinity;
  private checkedAt = -Infinity;
  private stamp = "";
  private loading: Promise<void> | null = null;
  private checking: Promise<void> | null = null;
  private healthTimer: NodeJS.Timeout | null = null;
  private lastHealth = new Map<string, string>();
  private healthPending = false;

  constructor(private readonly options: RoutedCarrierOptions) {
    this.name = options.fallback.name;
  }

  async start(events: CarrierEvents): Promise<void> {
    this.events = events;
    await this.options.fallback.start(events);
    await this.refresh().catch((error: unknown) => this.options.log.warn({ err: error }, "carrier routes not read"));
    const healthMs = this.options.healthMs ?? 5_000;
    this.healthTimer = setInterval(() => void this.writeHealth(), healthMs);
    this.healthTimer.unref();
  }

  async stop(): Promise<void> {
    if (this.healthTimer) clearInterval(this.healthTimer);
    await this.writeHealth();
    const carriers = [...this.active.values()].map((a) => a.carrier);
    this.active.clear();
    await Promise.all(carriers.map((c) => c.then((carrier) => carrier.stop()).catch(() => undefined)));
    await this.options.fallback.stop();
  }

  connectionState(): CarrierState {
    return this.options.fallback.connectionState?.() ?? { state: "connected", detail: "", since: new Date(0) };
  }

  submitWindow(): { inUse: number; size: number } {
    return this.options.fallback.submitWindow?.() ?? { inUse: 0, size: 0 };
  }

  async submit(part: OutboundPart, departure?: Departure): Promise<SubmitResult> {
    await this.currentRoutes();
    const connectionId = this.routes.get(part.from);
    if (connectionId === undefined) return this.options.fallback.submit(part, departure);
    const connection = this.connections.get(connectionId);
    if (!connection?.enabled) {
      return {
        ok: false,
        temporary: true,
        code: "CARRIER_DISABLED",
        detail: `the number's carrier connection "${connection?.name ?? connectionId}" is disabled`,
      };
    }
    const active = this.activate(connection);
    active.inFlight += 1;
    try {
      return await (await active.carrier).submit(part, departure);
    } finally {
      active.inFlight -= 1;
      this.healthSoon();
    }
  }

  /** Routes no older than the last check: read again when the stamp changed, or after 30 s. */
  private currentRoutes(): Promise<void> | void {
    const now = performance.now();
    if (now - this.loadedAt > 30_000) return this.refresh();
    if (now - this.checkedAt < (this.options.checkMs ?? 250)) return this.loading ?? undefined;
    this.checking ??= routesStamp()
      .then((stamp) => {
        this.checkedAt = performance.now();
        if (stamp !== this.stamp) return this.refresh();
      })
      .finally(() => {
        this.checking = null;
      });
    return this.checking;
  }

  /** Reads the routes and connections again (one read at a time; callers meanwhile wait for it). */
  private refresh(): Promise<void> {
    // The stamp first: a change made between the two reads only makes the next check read the routes again.
    this.loading ??= routesStamp()
      .then(async (stamp) => ({ stamp, ...(await loadRoutes()) }))
      .then(({ stamp, routes, connections }) => {
        this.stamp = stamp;
        this.routes = routes;
        this.connections = connections;
        this.loadedAt = this.checkedAt = performance.now();
        for (const [id, active] of this.active) {
          const now = connections.get(id);
          if (!now || fingerprint(now) !== fingerprint(active.connection)) this.retire(id, active);
        }
      })
      .finally(() => {
        this.loading = null;
      });
    return this.loading;
  }

  private activate(connection: OpenConnection): Active {
    const known = this.active.get(connection.id);
    if (known) return known;
    const carrier = Promise.resolve(this.options.build(connection)).then(async (built) => {
      await built.start(this.events!);
      return built;
    });
    carrier.catch((error: unknown) => {
      this.options.log.error({ err: error, connection: connection.name }, "carrier connection could not start");
      if (this.active.get(connection.id)?.carrier === carrier) this.active.delete(connection.id);
    });
    const active: Active = { connection, carrier, inFlight: 0 };
    this.active.set(connection.id, active);
    return active;
  }

  /** A connection changed or removed: its carrier stops once the parts it holds are answered. */
  private retire(id: string, active: Active): void {
    this.active.delete(id);
    const stop = async () => {
      while (active.inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 100));
      await (await active.carrier).stop();
    };
    stop().catch((error: unknown) => this.options.log.warn({ err: error }, "a retired carrier did not stop cleanly"));
  }

  /** After a send: a connection that went down (or came back) says so at once, not at the next period. */
  private healthSoon(): void {
    if (this.healthPending) return;
    this.healthPending = true;
    setTimeout(() => {
      this.healthPending = false;
      void this.writeHealth();
    }, 50).unref();
  }

  /** Each active connection's health, written when it changed. */
  private async writeHealth(): Promise<void> {
    const changed: ConnectionHealth[] = [];
    for (const [id, active] of this.active) {
      const carrier = await Promise.race([active.carrier, Promise.resolve(null)]).catch(() => null);
      const state = carrier?.connectionState?.() ?? null;
      const health: ConnectionHealth = state
        ? {
            id,
            state: state.state === "down" ? "down" : state.state === "connecting" ? "connecting" : "up",
            detail: state.detail,
            since: state.since,
          }
        : { id, state: "connecting", detail: "starting", since: new Date() };
      const key = `${health.state}|${health.detail}`;
      if (this.lastHealth.get(id) === key) continue;
      this.lastHealth.set(id, key);
      changed.push(health);
    }
    if (changed.length === 0) return;
    await saveConnectionStates(changed).catch((error: unknown) => {
      for (const h of changed) this.lastHealth.delete(h.id);
      this.options.log.warn({ err: error }, "carrier connection states not saved");
    });
  }
}
