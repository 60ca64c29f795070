import type { Logger } from "pino";
import { env } from "../env";
import type { Carrier } from "./carrier";
import type { OpenConnection } from "./connections/manage-connections";
import { connectionUrls } from "./connections/connection-urls";
import { HttpCarrier } from "./http/http-carrier";
import { isHttpProvider, providerFor } from "./http/providers";
import { createSimulatorCarrier } from "./simulator/simulator-carrier";

/**
 * The carrier a connection names: an HTTP provider, an SMPP peer, or the simulator (the deployment's own when the
 * default connection is the simulator: one simulator per worker delivers every simulated receipt).
 */
export async function buildConnectionCarrier(
  connection: OpenConnection,
  options: { log: Logger; defaultCarrier: Carrier },
): Promise<Carrier> {
  const name = `${connection.type}:${connection.name}`;
  const log = options.log.child({ carrier: name });
  if (isHttpProvider(connection.type)) {
    return new HttpCarrier({
      name,
      provider: providerFor(connection),
      statusUrl: () => connectionUrls(connection.id).statusUrl,
      log,
    });
  }
  const s = connection.settings;
  if (connection.type === "smpp") {
    const { createSmppCarrier } = await import("./smpp/smpp-carrier");
    const config = {
      host: String(s.host),
      port: Number(s.port),
      systemId: String(s.systemId),
      password: connection.credentials.password ?? "",
      systemType: s.systemType === undefined ? undefined : String(s.systemType),
      window: s.window === undefined ? undefined : Number(s.window),
      binds: s.binds === undefined ? undefined : Number(s.binds),
      bindMode: s.bindMode === undefined ? undefined : (String(s.bindMode) as "transceiver" | "transmitter-receiver"),
    };
    return createSmppCarrier(config, { log });
  }
  if (options.defaultCarrier.name === "simulator") return sharedCarrier(options.defaultCarrier);
  const e = env();
  return createSimulatorCarrier({
    receiptDelayMs: e.SIMULATOR_RECEIPT_DELAY_MS,
    claimMs: e.WORKER_LEASE_SECONDS * 1000,
  });
}

/** A carrier already started by its owner: starting and stopping it through a connection changes nothing. */
function sharedCarrier(carrier: Carrier): Carrier {
  return {
    name: carrier.name,
    start: async () => {},
    stop: async () => {},
    submit: (part, departure) => carrier.submit(part, departure),
    connectionState: carrier.connectionState ? () => carrier.connectionState!() : undefined,
  };
}
