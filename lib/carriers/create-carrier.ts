import { env } from "../env";
import type { Carrier } from "./carrier";
import { createSimulatorCarrier } from "./simulator/simulator-carrier";

/** The carrier the configuration names (CARRIER=simulator by default, or smpp). */
export async function createConfiguredCarrier(): Promise<Carrier> {
  const e = env();
  if (e.CARRIER === "smpp") {
    const { createSmppCarrier } = await import("./smpp/smpp-carrier");
    return createSmppCarrier({
      host: e.SMPP_HOST,
      port: e.SMPP_PORT,
      systemId: e.SMPP_SYSTEM_ID,
      password: e.SMPP_PASSWORD,
      systemType: e.SMPP_SYSTEM_TYPE,
      window: e.SMPP_WINDOW,
      enquireLinkSeconds: e.SMPP_ENQUIRE_LINK_SECONDS,
      binds: e.SMPP_BINDS,
      bindMode: e.SMPP_BIND_MODE,
    });
  }
  return createSimulatorCarrier({
    receiptDelayMs: e.SIMULATOR_RECEIPT_DELAY_MS,
    // Receipts a dead worker owed are taken over after the same lease as its numbers.
    claimMs: e.WORKER_LEASE_SECONDS * 1000,
  });
}
