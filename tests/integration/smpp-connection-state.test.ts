// What the SMPP carrier reports of its link for the dashboard (via the workers' heartbeat), against a real SMSC on
// loopback (tests/integration/helpers/test-smsc.ts): connecting before the first bind, bound, down once lost, bound
// again after the reconnect, with the time each state began.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import pino from "pino";
import type { Carrier, CarrierEvents } from "../../lib/carriers/carrier";
import { createSmppCarrier } from "../../lib/carriers/smpp/smpp-carrier";
import { TestSmsc } from "./helpers/test-smsc";

const events: CarrierEvents = { onReceipt: async () => undefined, onInbound: async () => undefined };
let smsc: TestSmsc;
let carrier: Carrier | undefined;

function create(port: number, password = "pw"): Carrier {
  carrier = createSmppCarrier(
    { host: "127.0.0.1", port, systemId: "parley", password, reconnect: { minMs: 20, maxMs: 40 } },
    { log: pino({ level: "silent" }) },
  );
  return carrier;
}

const state = () => carrier!.connectionState!();

beforeEach(async () => {
  smsc = await TestSmsc.start();
  smsc.password = "pw";
});

afterEach(async () => {
  await carrier?.stop();
  carrier = undefined;
  await smsc.close();
});

describe("SMPP connectionState", () => {
  it("is connecting before the first bind, then bound, then down since the loss, then bound again", async () => {
    const made = Date.now();
    create(smsc.port);
    expect(state()).toMatchObject({ state: "connecting", detail: `127.0.0.1:${smsc.port}` });
    await carrier!.start(events);
    await vi.waitFor(() => expect(state().state).toBe("bound"), { interval: 5, timeout: 5_000 });
    expect(state().detail).toBe(`127.0.0.1:${smsc.port} as parley`);
    const boundAt = state().since.getTime();
    expect(boundAt).toBeGreaterThanOrEqual(made);

    // The SMSC drops the link and refuses the next binds: down, since the moment it was lost, while it retries.
    smsc.password = "changed";
    smsc.dropConnections();
    await vi.waitFor(() => expect(state().state).toBe("down"), { interval: 5, timeout: 5_000 });
    const lostAt = state().since.getTime();
    expect(lostAt).toBeGreaterThanOrEqual(boundAt);
    await vi.waitFor(() => expect(state().detail).toMatch(/^bind_transceiver refused: ESME_RINVPASWD/), {
      interval: 5,
      timeout: 5_000,
    });
    expect(state().since.getTime()).toBe(lostAt);

    smsc.password = "pw";
    await vi.waitFor(() => expect(state().state).toBe("bound"), { interval: 5, timeout: 5_000 });
    expect(state().since.getTime()).toBeGreaterThanOrEqual(lostAt);
  });

  it("is down with the reason when the SMSC cannot be reached", async () => {
    const closed = await TestSmsc.start();
    const port = closed.port;
    await closed.close();
    create(port);
    await carrier!.start(events);
    await vi.waitFor(() => expect(state()).toMatchObject({ state: "down" }), { interval: 5, timeout: 5_000 });
    expect(state().detail).toMatch(/ECONNREFUSED.*; reconnecting to 127\.0\.0\.1:\d+$/);
  });
});
