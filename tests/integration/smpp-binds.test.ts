// The SMPP carrier with several binds to one SMSC, against a real SMSC on loopback (the `smpp` package's server,
// driven by tests/integration/helpers/multi-bind-smsc.ts): how submits spread over the binds, windows per bind,
// receipts and inbound parts on whichever bind they arrive, a throttled bind resting, one bind lost and back.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import pino from "pino";
import type {
  Carrier,
  CarrierEvents,
  DeliveryReceipt,
  Departure,
  InboundMessage,
  OutboundPart,
  SubmitResult,
} from "../../lib/carriers/carrier";
import { type SmppCarrierConfig, createSmppCarrier } from "../../lib/carriers/smpp/smpp-carrier";
import { call, createTestAccount, releaseFactories } from "../helpers/factories";
import { startServer } from "../helpers/server";
import { has, statuses, waitForSdrs } from "../helpers/wait-for";
import { MultiBindSmsc, type SmscSession } from "./helpers/multi-bind-smsc";

const FROM = "15550001111";
const TO = "447700900123";
const ESME_RTHROTTLED = 0x58;

function until(assertion: () => void, timeout = 5_000): Promise<void> {
  return vi.waitFor(assertion, { interval: 5, timeout });
}

class RecordingEvents implements CarrierEvents {
  readonly receipts: DeliveryReceipt[] = [];
  readonly inbound: InboundMessage[] = [];

  async onReceipt(receipt: DeliveryReceipt): Promise<void> {
    this.receipts.push(receipt);
  }

  async onInbound(message: InboundMessage): Promise<void> {
    this.inbound.push(message);
  }
}

function outbound(text: string): OutboundPart {
  return {
    messageId: `msg_${text}`,
    segmentNumber: 1,
    totalSegments: 1,
    concatReference: 0,
    from: FROM,
    to: TO,
    text,
    encoding: "GSM7",
    media: [],
  };
}

function carrierId(result: SubmitResult): string {
  if (!result.ok) throw new Error(`submit failed: ${result.code} ${result.detail}`);
  return result.carrierMessageId;
}

function receiptText(id: string): string {
  return `id:${id} sub:001 dlvrd:001 submit date:2611251200 done date:2611251201 stat:DELIVRD err:000 text:`;
}

/** How many submits each of the given sessions carried. */
function counts(sessions: SmscSession[]): number[] {
  return sessions.map((session) => session.submits.length);
}

let smsc: MultiBindSmsc;
let events: RecordingEvents;
let logLines: string[];
let carrier: Carrier | undefined;

async function startCarrier(overrides: Partial<SmppCarrierConfig>): Promise<Carrier> {
  const log = pino({ level: "debug" }, { write: (line: string) => void logLines.push(line) });
  carrier = createSmppCarrier(
    {
      host: "127.0.0.1",
      port: smsc.port,
      systemId: smsc.systemId,
      password: smsc.password,
      reconnect: { minMs: 10, maxMs: 40 },
      submitTimeoutMs: 2_000,
      ...overrides,
    },
    { log },
  );
  await carrier.start(events);
  return carrier;
}

const state = () => carrier!.connectionState!();

function logged(message: string): Array<Record<string, unknown>> {
  return logLines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.msg === message);
}

beforeEach(async () => {
  smsc = await MultiBindSmsc.start();
  events = new RecordingEvents();
  logLines = [];
});

afterEach(async () => {
  await carrier?.stop();
  carrier = undefined;
  await smsc.close();
});

describe("three transceiver binds", () => {
  it("binds three sessions and takes submits in turn on each", async () => {
    const carrier = await startCarrier({ binds: 3 });
    expect(state()).toMatchObject({ state: "connecting", detail: `127.0.0.1:${smsc.port}, 0 of 3 binds up` });
    await until(() => expect(state().detail).toBe(`127.0.0.1:${smsc.port} as parley, 3 of 3 binds up`));
    expect(state().state).toBe("bound");
    expect(smsc.sessions.map((session) => session.bindAs)).toEqual(["transceiver", "transceiver", "transceiver"]);
    expect(carrier.submitWindow!()).toEqual({ inUse: 0, size: 30 });

    // One at a time, every bind has the same room: they take turns.
    const departures: string[][] = [];
    for (let i = 0; i < 6; i++) {
      const steps: string[] = [];
      departures.push(steps);
      const departure: Departure = {
        leave: () => void steps.push(`leave, SMSC has ${smsc.submits.length}`),
        left: () => void steps.push("left"),
      };
      expect(await carrier.submit(outbound(`one ${i}`), departure)).toMatchObject({ ok: true });
    }
    expect(counts(smsc.sessions)).toEqual([2, 2, 2]);
    // Each part is told right before its write and right after it, once.
    expect(departures).toEqual(Array.from({ length: 6 }, (_, i) => [`leave, SMSC has ${i}`, "left"]));
  });

  it("keeps at most `window` outstanding on each bind, and more than one bind's window in all", async () => {
    const carrier = await startCarrier({ binds: 3, window: 2 });
    await until(() => expect(state().state).toBe("bound"));
    smsc.answer = () => ({ delayMs: 150 });

    const submits = Array.from({ length: 12 }, (_, i) => carrier.submit(outbound(`many ${i}`)));
    await until(() => expect(smsc.submits).toHaveLength(6));
    expect(carrier.submitWindow!()).toEqual({ inUse: 6, size: 6 });
    const results = await Promise.all(submits);

    expect(results.every((result) => result.ok)).toBe(true);
    expect(new Set(results.map(carrierId)).size).toBe(12);
    expect(smsc.sessions.map((session) => session.maxOutstanding)).toEqual([2, 2, 2]);
    expect(counts(smsc.sessions).reduce((a, b) => a + b)).toBe(12);
    // The first six went two to each bind at once; the rest took the slots as they freed.
    expect(
      smsc.submits
        .slice(0, 6)
        .map((submit) => submit.session.number)
        .sort(),
    ).toEqual([1, 1, 2, 2, 3, 3]);
    expect(carrier.submitWindow!()).toEqual({ inUse: 0, size: 6 });
  });

  it("a receipt arriving on another bind than its submit is reported with that submit's message id", async () => {
    const carrier = await startCarrier({ binds: 3 });
    await until(() => expect(smsc.bound).toHaveLength(3));

    const id = carrierId(await carrier.submit(outbound("receipted")));
    const [submit] = smsc.submits;
    const other = smsc.sessions.find((session) => session !== submit!.session)!;
    expect(submit!.messageId).toBe(id);

    const status = await smsc.deliver(other, {
      source_addr: TO,
      destination_addr: FROM,
      esm_class: 0x04,
      short_message: Buffer.from(receiptText(id)),
    });

    expect(status).toBe(0);
    expect(events.receipts).toMatchObject([{ carrierMessageId: id, status: "delivered", carrierCode: "000" }]);
  });

  it("when the SMSC drops one bind the carrier stays bound on the others, and the dropped one comes back", async () => {
    const carrier = await startCarrier({ binds: 3, reconnect: { minMs: 300, maxMs: 300 } });
    await until(() => expect(state().detail).toMatch(/3 of 3 binds up$/));
    const boundSince = state().since;

    smsc.drop(smsc.sessions[1]!);
    await until(() => expect(state().detail).toBe(`127.0.0.1:${smsc.port} as parley, 2 of 3 binds up`));
    expect(state()).toMatchObject({ state: "bound", since: boundSince });
    // Meanwhile the two left carry the submits.
    for (let i = 0; i < 4; i++) expect(await carrier.submit(outbound(`meanwhile ${i}`))).toMatchObject({ ok: true });
    expect(counts(smsc.sessions)).toEqual([2, 0, 2]);
    // Only the dropped bind reconnects (which of the carrier's binds the SMSC numbered 2 depends on the timing).
    expect(logged("smpp: connection closed; reconnecting")).toEqual([
      expect.objectContaining({ bind: expect.stringMatching(/^transceiver [123]$/) }),
    ]);

    await until(() => expect(smsc.bound).toHaveLength(3));
    expect(smsc.sessions).toHaveLength(4);
    await until(() => expect(state().detail).toMatch(/3 of 3 binds up$/));
    expect(state().since).toEqual(boundSince);
  });

  it("stop() unbinds every bind", async () => {
    const carrier = await startCarrier({ binds: 3 });
    // Bound on both sides: a bind the SMSC answered but whose bind_resp the carrier has not read yet is closed, not
    // unbound.
    await until(() => expect(smsc.bound).toHaveLength(3));
    await until(() => expect(state().detail).toMatch(/3 of 3 binds up$/));
    await carrier.stop();
    expect(smsc.unbinds).toBe(3);
    expect(smsc.bound).toHaveLength(0);
    expect(await carrier.submit(outbound("late"))).toMatchObject({ ok: false, code: "NOT_BOUND" });
  });
});

describe("transmitters and receivers", () => {
  it("binds two transmitters and two receivers, submits only on transmitters, takes receipts on receivers", async () => {
    const carrier = await startCarrier({ binds: 2, bindMode: "transmitter-receiver", window: 3 });
    await until(() => expect(state().detail).toBe(`127.0.0.1:${smsc.port} as parley, 4 of 4 binds up`));
    expect(smsc.sessions.map((session) => session.bindAs).sort()).toEqual([
      "receiver",
      "receiver",
      "transmitter",
      "transmitter",
    ]);
    expect(carrier.submitWindow!()).toEqual({ inUse: 0, size: 6 });

    smsc.answer = () => ({ delayMs: 20 });
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => carrier.submit(outbound(`tx ${i}`))));
    expect(results.every((result) => result.ok)).toBe(true);
    const transmitters = smsc.sessions.filter((session) => session.bindAs === "transmitter");
    const receivers = smsc.sessions.filter((session) => session.bindAs === "receiver");
    expect(counts(receivers)).toEqual([0, 0]);
    expect(counts(transmitters).every((count) => count > 0)).toBe(true);

    // Each receipt on a receiver, for parts submitted on either transmitter.
    const first = smsc.submits.find((submit) => submit.session === transmitters[0])!;
    const second = smsc.submits.find((submit) => submit.session === transmitters[1])!;
    for (const [submit, receiver] of [
      [first, receivers[1]!],
      [second, receivers[0]!],
    ] as const) {
      const status = await smsc.deliver(receiver, {
        source_addr: TO,
        destination_addr: FROM,
        esm_class: 0x04,
        short_message: Buffer.from(receiptText(submit.messageId!)),
      });
      expect(status).toBe(0);
    }
    expect(events.receipts).toMatchObject([
      { carrierMessageId: first.messageId, status: "delivered" },
      { carrierMessageId: second.messageId, status: "delivered" },
    ]);
    expect(results.map(carrierId)).toEqual(expect.arrayContaining([first.messageId, second.messageId]));
  });

  it("reassembles an inbound message whose parts arrive on different receivers", async () => {
    await startCarrier({ binds: 2, bindMode: "transmitter-receiver" });
    await until(() => expect(state().state).toBe("bound"));
    const receivers = smsc.sessions.filter((session) => session.bindAs === "receiver");
    const part = (seq: number, text: string) => Buffer.from([0x05, 0x00, 0x03, 0x2a, 2, seq, ...Buffer.from(text)]);

    expect(
      await smsc.deliver(receivers[0]!, {
        source_addr: TO,
        destination_addr: FROM,
        esm_class: 0x40,
        short_message: part(2, "world"),
      }),
    ).toBe(0);
    expect(events.inbound).toHaveLength(0);
    expect(
      await smsc.deliver(receivers[1]!, {
        source_addr: TO,
        destination_addr: FROM,
        esm_class: 0x40,
        short_message: part(1, "Hello, "),
      }),
    ).toBe(0);

    expect(events.inbound).toMatchObject([{ from: TO, to: FROM, text: "Hello, world", numSegments: 2 }]);
  });

  it("is down while no transmitter can bind, even with the receivers bound", async () => {
    smsc.refuse.add("transmitter");
    const carrier = await startCarrier({ binds: 2, bindMode: "transmitter-receiver", submitTimeoutMs: 200 });
    await until(() => expect(smsc.bound).toHaveLength(2));
    await until(() => expect(state().state).toBe("down"));
    // The receivers' binds are counted as their answers arrive: the detail catches up with the SMSC's list.
    await until(() =>
      expect(state().detail).toBe(
        `bind_transmitter refused: ESME_RBINDFAIL (0x0d); reconnecting to 127.0.0.1:${smsc.port}, 2 of 4 binds up`,
      ),
    );
    const refused = await carrier.submit(outbound("nowhere"));
    expect(refused).toMatchObject({ ok: false, temporary: true, code: "NOT_BOUND" });
    expect(refused.ok === false && refused.detail).toBe(
      "not bound to the SMSC within 200 ms: bind_transmitter refused: ESME_RBINDFAIL (0x0d)",
    );

    smsc.refuse.clear();
    await until(() => expect(state()).toMatchObject({ state: "bound", detail: expect.stringMatching(/4 of 4/) }));
    expect(await carrier.submit(outbound("now"))).toMatchObject({ ok: true });
  });

  it("is down, though it still sends, while no receiver can bind", async () => {
    smsc.refuse.add("receiver");
    const carrier = await startCarrier({ binds: 2, bindMode: "transmitter-receiver" });
    await until(() => expect(smsc.bound).toHaveLength(2));
    await until(() => expect(state().state).toBe("down"));
    expect(state().detail).toBe(
      `no receiver bound: bind_receiver refused: ESME_RBINDFAIL (0x0d); reconnecting to 127.0.0.1:${smsc.port}, 2 of 4 binds up`,
    );
    expect(await carrier.submit(outbound("receipts will wait"))).toMatchObject({ ok: true });

    smsc.refuse.clear();
    await until(() => expect(state()).toMatchObject({ state: "bound", detail: expect.stringMatching(/4 of 4/) }));
  });
});

describe("throttling", () => {
  it("ESME_RTHROTTLED makes that bind rest for 1 s while the other keeps sending", async () => {
    const carrier = await startCarrier({ binds: 2, window: 2 });
    await until(() => expect(smsc.bound).toHaveLength(2));
    const [throttling, other] = smsc.sessions as [SmscSession, SmscSession];
    let throttle = true;
    smsc.answer = (submit) =>
      submit.session === throttling && throttle ? { status: ESME_RTHROTTLED, delayMs: 30 } : { delayMs: 30 };

    // Two go to each bind; both on the throttling bind are refused, the rest is taken once.
    const first = await Promise.all(Array.from({ length: 4 }, (_, i) => carrier.submit(outbound(`first ${i}`))));
    const throttledAt = Date.now();
    expect(counts([throttling, other])).toEqual([2, 2]);
    expect(first.filter((result) => !result.ok)).toEqual([
      { ok: false, temporary: true, code: "0x58", detail: "ESME_RTHROTTLED" },
      { ok: false, temporary: true, code: "0x58", detail: "ESME_RTHROTTLED" },
    ]);
    expect(
      logged("smpp: the SMSC throttles this bind; it takes no submits for a while, the other binds go on"),
    ).toEqual([
      expect.objectContaining({ bind: expect.stringMatching(/^transceiver [12]$/), status: "0x58", restMs: 1_000 }),
    ]);

    // While it rests, everything goes to the other bind.
    throttle = false;
    const during = await Promise.all(Array.from({ length: 6 }, (_, i) => carrier.submit(outbound(`during ${i}`))));
    expect(during.every((result) => result.ok)).toBe(true);
    expect(counts([throttling, other])).toEqual([2, 8]);

    // After its rest it takes submits again.
    for (let i = 0; throttling.submits.length === 2; i++) {
      expect(await carrier.submit(outbound(`after ${i}`))).toMatchObject({ ok: true });
    }
    expect(throttling.submits.at(-1)!.at - throttledAt).toBeGreaterThanOrEqual(900);
  });

  it("the rest doubles with each throttle up to its longest, and an accepted submit brings it back", async () => {
    const carrier = await startCarrier({ throttle: { minMs: 50, maxMs: 200 } });
    await until(() => expect(smsc.bound).toHaveLength(1));
    const throttled = new Set([0, 1, 2, 3, 5]);
    smsc.answer = (submit) => (throttled.has(smsc.submits.indexOf(submit)) ? { status: 0x14 } : {});

    const codes: string[] = [];
    for (let i = 0; i < 6; i++) {
      const result = await carrier.submit(outbound(`again ${i}`));
      codes.push(result.ok ? "ok" : result.code);
    }

    expect(codes).toEqual(["0x14", "0x14", "0x14", "0x14", "ok", "0x14"]);
    const rests = logged("smpp: the SMSC throttles this bind; it takes no submits for a while, the other binds go on");
    expect(rests.map((line) => [line.detail, line.restMs])).toEqual([
      ["ESME_RMSGQFUL", 50],
      ["ESME_RMSGQFUL", 100],
      ["ESME_RMSGQFUL", 200],
      ["ESME_RMSGQFUL", 200],
      ["ESME_RMSGQFUL", 50],
    ]);
    // Each submit after a throttle waited for the rest to end.
    const gaps = smsc.submits.slice(1).map((submit, i) => submit.at - smsc.submits[i]!.at);
    expect(gaps.slice(0, 4).map((gap, i) => gap >= [50, 100, 200, 200][i]! - 5)).toEqual([true, true, true, true]);
  });
});

describe("a server with SMPP_BINDS=2 and SMPP_BIND_MODE=transmitter-receiver", () => {
  it("submits on the transmitters and records each receipt, whichever receiver brings it, on its own message", async () => {
    const server = await startServer({
      env: {
        PARLEY_WORKER: "true",
        WORKER_POLL_MS: "50",
        CARRIER: "smpp",
        SMPP_HOST: "127.0.0.1",
        SMPP_PORT: String(smsc.port),
        SMPP_SYSTEM_ID: smsc.systemId,
        SMPP_PASSWORD: smsc.password,
        SMPP_BINDS: "2",
        SMPP_BIND_MODE: "transmitter-receiver",
      },
    });
    try {
      await until(() => expect(smsc.bound).toHaveLength(4), 15_000);
      expect(smsc.sessions.map((session) => session.bindAs).sort()).toEqual([
        "receiver",
        "receiver",
        "transmitter",
        "transmitter",
      ]);
      const account = await createTestAccount(server, { numbers: 2 });
      const send = async (from: string, body: string): Promise<string> => {
        const res = await call(server, "POST", "/v3/messages", {
          headers: account.headers,
          body: { accountId: account.accountId, from, to: "14155550123", body },
        });
        return res.json.data.messageInfo[0].messageId;
      };
      const first = await send(account.numbers[0]!, "First over two binds");
      const second = await send(account.numbers[1]!, "Second over two binds");
      await waitForSdrs(server, account, first, has("wait_dlr"));
      await waitForSdrs(server, account, second, has("wait_dlr"));
      const submitOf = (text: string) => smsc.submits.find((submit) => submit.text === text)!;
      expect([submitOf("First over two binds"), submitOf("Second over two binds")]).toMatchObject([
        { session: { bindAs: "transmitter" } },
        { session: { bindAs: "transmitter" } },
      ]);

      // The second's receipt first, on one receiver; the first's, with another outcome, on the other.
      const receivers = smsc.sessions.filter((session) => session.bindAs === "receiver");
      const receipt = (text: string, stat: string) =>
        Buffer.from(receiptText(submitOf(text).messageId!).replace("DELIVRD", stat));
      expect(
        await smsc.deliver(receivers[0]!, {
          esm_class: 0x04,
          short_message: receipt("Second over two binds", "DELIVRD"),
        }),
      ).toBe(0);
      expect(
        await smsc.deliver(receivers[1]!, {
          esm_class: 0x04,
          short_message: receipt("First over two binds", "UNDELIV"),
        }),
      ).toBe(0);

      const firstRecords = await waitForSdrs(server, account, first, has("dlr_received"));
      const secondRecords = await waitForSdrs(server, account, second, has("dlr_received"));
      expect(statuses(firstRecords)).toContain("undelivered");
      expect(statuses(firstRecords)).not.toContain("delivered");
      expect(statuses(secondRecords)).toContain("delivered");
      expect(statuses(secondRecords)).not.toContain("undelivered");
    } finally {
      await releaseFactories();
      await server.stop();
    }
  });
});
