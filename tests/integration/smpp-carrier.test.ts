// The SMPP carrier against a real SMSC on loopback: the `smpp` package's own server, driven by tests/integration/
// helpers/test-smsc.ts. Nothing of the protocol is mocked; every assertion is on what crossed the socket.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import pino from "pino";
import type { Carrier, CarrierEvents, DeliveryReceipt, InboundMessage, OutboundPart } from "../../lib/carriers/carrier";
import { type SmppCarrierConfig, createSmppCarrier } from "../../lib/carriers/smpp/smpp-carrier";
import { countSegments } from "../../lib/segments/count-segments";
import { splitSegments } from "../../lib/segments/split-segments";
import { TestSmsc } from "./helpers/test-smsc";

const FROM = "15550001111";
const TO = "447700900123";
const PASSWORD = "pw-Zq81x!";

/** Polls an assertion until it holds: loopback answers within milliseconds, so poll often. */
function until(assertion: () => void): Promise<void> {
  return vi.waitFor(assertion, { interval: 5, timeout: 5_000 });
}

class RecordingEvents implements CarrierEvents {
  readonly receipts: DeliveryReceipt[] = [];
  readonly inbound: InboundMessage[] = [];
  /** Calls of onInbound that throw before one succeeds. */
  failInbound = 0;

  async onReceipt(receipt: DeliveryReceipt): Promise<void> {
    this.receipts.push(receipt);
  }

  async onInbound(message: InboundMessage): Promise<void> {
    if (this.failInbound > 0) {
      this.failInbound--;
      throw new Error("database unavailable");
    }
    this.inbound.push(message);
  }
}

function outbound(text: string, overrides: Partial<OutboundPart> = {}): OutboundPart {
  return {
    messageId: "msg_1",
    segmentNumber: 1,
    totalSegments: 1,
    concatReference: 0,
    from: FROM,
    to: TO,
    text,
    encoding: countSegments(text).encoding,
    media: [],
    ...overrides,
  };
}

/** The parts of a text as the worker hands them over. */
function outboundParts(text: string, concatReference: number): OutboundPart[] {
  const { encoding, parts } = splitSegments(text);
  return parts.map((partText, i) =>
    outbound(partText, { encoding, concatReference, segmentNumber: i + 1, totalSegments: parts.length }),
  );
}

function ucs2(bytes: Buffer): string {
  return Buffer.from(bytes).swap16().toString("utf16le");
}

let smsc: TestSmsc;
let events: RecordingEvents;
let logLines: string[];
const carriers: Carrier[] = [];

/** Until the carrier has taken a bind_transceiver_resp with ESME_ROK (not just the SMSC sent one). */
function carrierBound(): Promise<void> {
  return until(() => expect(logLines.join("")).toContain("smpp: bound as transceiver"));
}

async function startCarrier(overrides: Partial<SmppCarrierConfig> = {}): Promise<Carrier> {
  const log = pino({ level: "debug" }, { write: (line: string) => void logLines.push(line) });
  const carrier = createSmppCarrier(
    {
      host: "127.0.0.1",
      port: overrides.port ?? smsc.port,
      systemId: "parley",
      password: PASSWORD,
      systemType: "parley-test",
      reconnect: { minMs: 10, maxMs: 40 },
      submitTimeoutMs: 2_000,
      ...overrides,
    },
    { log },
  );
  carriers.push(carrier);
  await carrier.start(events);
  return carrier;
}

beforeEach(async () => {
  smsc = await TestSmsc.start();
  smsc.password = PASSWORD;
  events = new RecordingEvents();
  logLines = [];
});

afterEach(async () => {
  await Promise.all(carriers.splice(0).map((carrier) => carrier.stop()));
  await smsc.close();
});

describe("binding", () => {
  it("binds as a transceiver with the configured credentials, SMPP 3.4", async () => {
    await startCarrier();
    await until(() => expect(smsc.boundSessions).toHaveLength(1));
    expect(smsc.binds).toEqual([
      { systemId: "parley", password: PASSWORD, systemType: "parley-test", interfaceVersion: 0x34, accepted: true },
    ]);
  });

  it("with a wrong password reports the bind failure, keeps retrying, and binds once the SMSC accepts", async () => {
    smsc.password = "the-right-one";
    const carrier = await startCarrier({ submitTimeoutMs: 150 });

    const refused = await carrier.submit(outbound("Hello"));
    expect(refused).toMatchObject({ ok: false, temporary: true, code: "NOT_BOUND" });
    expect(refused.ok === false && refused.detail).toContain("bind_transceiver refused: ESME_RINVPASWD (0x0e)");
    await until(() => expect(smsc.binds.length).toBeGreaterThanOrEqual(3));
    expect(smsc.binds.every((bind) => !bind.accepted)).toBe(true);
    expect(smsc.submits).toHaveLength(0);

    const log = logLines.join("");
    expect(log).toContain("bind_transceiver refused: ESME_RINVPASWD");
    expect(log).toContain("reconnecting");
    expect(log).not.toContain(PASSWORD);

    smsc.password = PASSWORD;
    await carrierBound();
    expect(smsc.binds.at(-1)).toMatchObject({ accepted: true });
  });

  it("keeps trying while nothing listens, and binds when the SMSC comes up", async () => {
    const port = smsc.port;
    await smsc.close();
    const carrier = await startCarrier({ port, submitTimeoutMs: 100 });
    expect(await carrier.submit(outbound("Hi"))).toMatchObject({ ok: false, temporary: true, code: "NOT_BOUND" });
    await until(() => expect(logLines.join("")).toMatch(/ECONNREFUSED[\s\S]*ECONNREFUSED/));

    smsc = await TestSmsc.startOn(port);
    smsc.password = PASSWORD;
    await carrierBound();
    expect(smsc.binds).toMatchObject([{ accepted: true }]);
  });

  it("a submit made before the bind waits for it", async () => {
    const carrier = await startCarrier();
    const result = await carrier.submit(outbound("Early"));
    expect(result).toEqual({ ok: true, carrierMessageId: "M000001" });
  });
});

describe("submit_sm", () => {
  it("GSM7 single part: data_coding 0, unpacked septets with escapes, no UDH, international addresses", async () => {
    const carrier = await startCarrier();
    const text = "Hi {you} €5 @ñ";
    expect(countSegments(text).encoding).toBe("GSM7");

    const result = await carrier.submit(outbound(text));

    expect(result).toEqual({ ok: true, carrierMessageId: "M000001" });
    expect(smsc.submits).toHaveLength(1);
    const [submit] = smsc.submits;
    expect(submit).toMatchObject({
      sourceAddr: FROM,
      sourceTon: 1,
      sourceNpi: 1,
      destinationAddr: TO,
      destTon: 1,
      destNpi: 1,
      esmClass: 0,
      registeredDelivery: 1,
      dataCoding: 0,
    });
    // H i ␠ ESC( y o u ESC) ␠ ESCe 5 ␠ @ ñ, one septet per octet (GSM 03.38).
    expect([...submit!.shortMessage]).toEqual([
      0x48, 0x69, 0x20, 0x1b, 0x28, 0x79, 0x6f, 0x75, 0x1b, 0x29, 0x20, 0x1b, 0x65, 0x35, 0x20, 0x00, 0x7d,
    ]);
    expect(submit!.decoded.udh).toBeUndefined();
    expect(submit!.decoded.message).toBe(text); // the smpp package's own GSM table reads it back
  });

  it("a send's validity goes as the relative validity_period of the time left; none without one", async () => {
    const carrier = await startCarrier();
    await carrier.submit(outbound("Your code is 4821", { messageId: "msg_v", validUntil: Date.now() + 90_000 }));
    await carrier.submit(outbound("No validity", { messageId: "msg_n" }));
    expect(smsc.submits).toHaveLength(2);
    expect(smsc.submits[0]!.validityPeriod).toMatch(/^00000000013[01]000R$/);
    expect(smsc.submits[1]!.validityPeriod).toBe("");
  });

  it("two-part UCS-2: esm_class 0x40, UDH 05 00 03 ref 2 seq, data_coding 8, parts reassemble to the text", async () => {
    const carrier = await startCarrier();
    const text = "Привет! Это длинное сообщение 😀, которое не помещается в один сегмент UCS-2 — проверка.";
    const parts = outboundParts(text, 0xa7);
    expect(parts.map((part) => [part.encoding, part.totalSegments])).toEqual([
      ["UCS2", 2],
      ["UCS2", 2],
    ]);

    const results = await Promise.all(parts.map((part) => carrier.submit(part)));

    expect(results.every((result) => result.ok)).toBe(true);
    const submits = [...smsc.submits].sort((a, b) => a.shortMessage[5]! - b.shortMessage[5]!);
    expect(submits).toHaveLength(2);
    for (const [i, submit] of submits.entries()) {
      expect(submit.esmClass).toBe(0x40);
      expect(submit.dataCoding).toBe(8);
      expect([...submit.shortMessage.subarray(0, 6)]).toEqual([0x05, 0x00, 0x03, 0xa7, 2, i + 1]);
      expect(submit.decoded.udh?.map((ie) => [...ie])).toEqual([[0x00, 0x03, 0xa7, 2, i + 1]]);
    }
    expect(submits.map((submit) => ucs2(submit.shortMessage.subarray(6))).join("")).toBe(text);
  });

  it("Latin-1: data_coding 3 with ISO-8859-1 octets", async () => {
    const carrier = await startCarrier();
    const latin = "Olá! ¿Qué tal? Não, obrigada - ½ preço";
    expect(countSegments(latin).encoding).toBe("LATIN1");

    expect(await carrier.submit(outbound(latin))).toMatchObject({ ok: true });
    expect(smsc.submits[0]).toMatchObject({ dataCoding: 3, esmClass: 0 });
    expect(smsc.submits[0]!.shortMessage).toEqual(Buffer.from(latin, "latin1"));
    expect(smsc.submits[0]!.decoded.message).toBe(latin);
  });

  it("MMS goes as text with the media links, and says so", async () => {
    const carrier = await startCarrier();
    const part = outbound("See these", {
      media: ["https://example.com/a.jpg", "https://example.com/b.png?size=large"],
    });

    const result = await carrier.submit(part);

    expect(result).toEqual({
      ok: true,
      carrierMessageId: "M000001",
      note: "MMS sent as SMS with media links (SMPP has no MMS)",
    });
    expect(smsc.submits[0]!.dataCoding).toBe(0);
    expect(smsc.submits[0]!.decoded.message).toBe(
      "See these\nhttps://example.com/a.jpg\nhttps://example.com/b.png?size=large",
    );
  });

  it("an MMS whose links outgrow one SMS carries the text in message_payload", async () => {
    const carrier = await startCarrier();
    const media = Array.from({ length: 5 }, (_, i) => `https://media.example.com/${"x".repeat(30)}/${i}.jpg`);

    expect(await carrier.submit(outbound("Photos", { media }))).toMatchObject({ ok: true });

    const [submit] = smsc.submits;
    expect(submit!.shortMessage).toHaveLength(0);
    expect(submit!.messagePayload?.toString("latin1")).toBe(["Photos", ...media].join("\n"));
  });

  it.each([
    ["ESME_RTHROTTLED", 0x58],
    ["ESME_RMSGQFUL", 0x14],
    ["ESME_RSYSERR", 0x08],
  ])("%s is temporary", async (name, status) => {
    const carrier = await startCarrier();
    smsc.answer = () => ({ status });
    expect(await carrier.submit(outbound("Hi"))).toEqual({
      ok: false,
      temporary: true,
      code: `0x${status.toString(16).padStart(2, "0")}`,
      detail: name,
    });
  });

  it("any other status is permanent, with its code and name", async () => {
    const carrier = await startCarrier();
    smsc.answer = () => ({ status: 0x0b });
    expect(await carrier.submit(outbound("Hi"))).toEqual({
      ok: false,
      temporary: false,
      code: "0x0b",
      detail: "ESME_RINVDSTADR",
    });
  });

  it("no submit_sm_resp within submitTimeoutMs is a temporary TIMEOUT", async () => {
    const carrier = await startCarrier({ submitTimeoutMs: 150 });
    await carrierBound();
    smsc.answer = () => ({ silent: true });
    expect(await carrier.submit(outbound("Hi"))).toMatchObject({ ok: false, temporary: true, code: "TIMEOUT" });
  });

  it("keeps at most `window` submit_sm outstanding; the rest wait for a slot", async () => {
    const carrier = await startCarrier({ window: 2 });
    // Answers slow enough that the window fills even on a busy machine.
    smsc.answer = () => ({ delayMs: 200 });

    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => carrier.submit(outbound(`Message ${i}`, { messageId: `msg_${i}` }))),
    );

    expect(results.every((result) => result.ok)).toBe(true);
    expect(smsc.submits).toHaveLength(6);
    // Never more than the window; and the window was used (how far depends on timing only below it).
    expect(smsc.maxOutstanding).toBeLessThanOrEqual(2);
    expect(smsc.maxOutstanding).toBeGreaterThanOrEqual(1);
    // Slots are granted in the order submits arrived.
    expect(smsc.submits.map((submit) => submit.decoded.message)).toEqual(
      Array.from({ length: 6 }, (_, i) => `Message ${i}`),
    );
  });
});

describe("deliver_sm", () => {
  async function submitted(carrier: Carrier): Promise<string> {
    const result = await carrier.submit(outbound("Hello"));
    if (!result.ok) throw new Error(`submit failed: ${result.detail}`);
    return result.carrierMessageId;
  }

  it("a DELIVRD receipt → onReceipt delivered, err as carrierCode, the text as statusMsg", async () => {
    const carrier = await startCarrier();
    const id = await submitted(carrier);
    const text = `id:${id} sub:001 dlvrd:001 submit date:2611211200 done date:2611211201 stat:DELIVRD err:000 text:Hello`;

    const status = await smsc.deliver({
      source_addr: TO,
      destination_addr: FROM,
      esm_class: 0x04,
      short_message: Buffer.from(text, "latin1"),
    });

    expect(status).toBe(0);
    expect(events.receipts).toEqual([
      { carrierMessageId: id, status: "delivered", carrierCode: "000", statusMsg: text, receivedAt: expect.any(Date) },
    ]);
  });

  it.each([
    ["UNDELIV", "undelivered"],
    ["EXPIRED", "expired"],
    ["REJECTD", "rejected"],
    ["DELETED", "failed"],
    ["UNKNOWN", "failed"],
  ])("stat:%s → %s", async (stat, expected) => {
    const carrier = await startCarrier();
    const id = await submitted(carrier);
    const text = `id:${id} sub:001 dlvrd:000 submit date:2611211200 done date:2611211201 stat:${stat} err:034 text:Hello`;

    expect(await smsc.deliver({ esm_class: 0x04, short_message: Buffer.from(text) })).toBe(0);

    expect(events.receipts).toMatchObject([{ carrierMessageId: id, status: expected, carrierCode: "034" }]);
  });

  it("reads receipt text as ASCII under data_coding 0, so ids with _ or @ survive", async () => {
    await startCarrier();
    await until(() => expect(smsc.boundSessions).toHaveLength(1));
    const text =
      "id:ab_12@x sub:001 dlvrd:001 submit date:2611211200 done date:2611211201 stat:DELIVRD err:000 text:$5_off";

    expect(await smsc.deliver({ esm_class: 0x04, data_coding: 0, short_message: Buffer.from(text) })).toBe(0);

    expect(events.receipts).toMatchObject([{ carrierMessageId: "ab_12@x", status: "delivered", statusMsg: text }]);
  });

  it("takes the message id and state from the receipted_message_id and message_state TLVs", async () => {
    const carrier = await startCarrier();
    const id = await submitted(carrier);
    // Some SMSCs put a shortened or decimal id in the text; the TLV holds the id submit_sm_resp gave.
    const text = "id:12345 sub:001 dlvrd:000 submit date:2611211200 done date:2611211201 stat:ENROUTE err:000 text:";

    await smsc.deliver({
      esm_class: 0x04,
      short_message: Buffer.from(text),
      receipted_message_id: id,
      message_state: 5, // UNDELIVERABLE
    });
    await smsc.deliver({ esm_class: 0x04, short_message: Buffer.alloc(0), receipted_message_id: id, message_state: 2 });

    expect(events.receipts).toMatchObject([
      { carrierMessageId: id, status: "undelivered", carrierCode: "000", statusMsg: text },
      { carrierMessageId: id, status: "delivered", carrierCode: "", statusMsg: "" },
    ]);
  });

  it("ignores progress receipts (ENROUTE, ACCEPTD) and reports only the final outcome", async () => {
    const carrier = await startCarrier();
    const id = await submitted(carrier);
    for (const stat of ["ENROUTE", "ACCEPTD"]) {
      const text = `id:${id} sub:001 dlvrd:000 submit date:2611211200 done date:2611211201 stat:${stat} err:000 text:`;
      expect(await smsc.deliver({ esm_class: 0x04, short_message: Buffer.from(text) })).toBe(0);
    }
    expect(
      await smsc.deliver({
        esm_class: 0x04,
        short_message: Buffer.alloc(0),
        receipted_message_id: id,
        message_state: 6,
      }),
    ).toBe(0);
    const final = `id:${id} sub:001 dlvrd:001 submit date:2611211200 done date:2611211202 stat:DELIVRD err:000 text:`;
    expect(await smsc.deliver({ esm_class: 0x04, short_message: Buffer.from(final) })).toBe(0);

    expect(events.receipts).toMatchObject([{ carrierMessageId: id, status: "delivered", statusMsg: final }]);
  });

  it("an inbound two-part GSM7 message with UDH → one onInbound with the whole text", async () => {
    await startCarrier();
    await until(() => expect(smsc.boundSessions).toHaveLength(1));
    const udh = (seq: number) => [0x05, 0x00, 0x03, 0x3c, 2, seq];
    // Part 1 ends with an escape whose character (€) opens part 2: the parts are joined before decoding.
    const part1 = Buffer.from([...udh(1), ...Buffer.from("Price: 5"), 0x1b]);
    const part2 = Buffer.from([...udh(2), 0x65, 0x20, 0x1b, 0x28, 0x6f, 0x6b, 0x1b, 0x29]); // € {ok}

    // Out of order, as networks deliver them.
    expect(await smsc.deliver({ source_addr: TO, destination_addr: FROM, esm_class: 0x40, short_message: part2 })).toBe(
      0,
    );
    expect(events.inbound).toHaveLength(0);
    expect(await smsc.deliver({ source_addr: TO, destination_addr: FROM, esm_class: 0x40, short_message: part1 })).toBe(
      0,
    );

    expect(events.inbound).toEqual([
      { from: TO, to: FROM, text: "Price: 5€ {ok}", media: [], numSegments: 2, receivedAt: expect.any(Date) },
    ]);
  });

  it("decodes Latin-1 and UCS-2, and reassembles 16-bit references and sar_* TLVs", async () => {
    await startCarrier();
    await until(() => expect(smsc.boundSessions).toHaveLength(1));
    const utf16be = (text: string) => Buffer.from(text, "utf16le").swap16();

    await smsc.deliver({
      source_addr: "1",
      destination_addr: FROM,
      data_coding: 3,
      short_message: Buffer.from("Olá ½", "latin1"),
    });

    // UCS-2 with a 16-bit reference IE; the emoji's surrogate pair is split between the parts.
    const emoji = utf16be("😀");
    const udh16 = (seq: number) => [0x06, 0x08, 0x04, 0x12, 0x34, 2, seq];
    await smsc.deliver({
      source_addr: "2",
      destination_addr: FROM,
      esm_class: 0x40,
      data_coding: 8,
      short_message: Buffer.from([...udh16(1), ...utf16be("Привет "), ...emoji.subarray(0, 2)]),
    });
    await smsc.deliver({
      source_addr: "2",
      destination_addr: FROM,
      esm_class: 0x40,
      data_coding: 8,
      short_message: Buffer.from([...udh16(2), ...emoji.subarray(2), ...utf16be(" мир")]),
    });

    // sar_* TLVs instead of a UDH.
    for (const [seq, text] of [
      [2, "second"],
      [1, "first, "],
    ] as const) {
      await smsc.deliver({
        source_addr: "3",
        destination_addr: FROM,
        short_message: Buffer.from(text),
        sar_msg_ref_num: 0x0102,
        sar_total_segments: 2,
        sar_segment_seqnum: seq,
      });
    }

    expect(events.inbound.map((message) => [message.from, message.text, message.numSegments])).toEqual([
      ["1", "Olá ½", 1],
      ["2", "Привет 😀 мир", 2],
      ["3", "first, second", 2],
    ]);
  });

  it("delivers what arrived when parts are still missing after the reassembly timeout", async () => {
    await startCarrier({ reassemblyTimeoutMs: 300 });
    await until(() => expect(smsc.boundSessions).toHaveLength(1));

    await smsc.deliver({
      source_addr: TO,
      destination_addr: FROM,
      esm_class: 0x40,
      short_message: Buffer.from([0x05, 0x00, 0x03, 9, 3, 1, ...Buffer.from("one ")]),
    });
    await smsc.deliver({
      source_addr: TO,
      destination_addr: FROM,
      esm_class: 0x40,
      short_message: Buffer.from([0x05, 0x00, 0x03, 9, 3, 3, ...Buffer.from("three")]),
    });
    expect(events.inbound).toHaveLength(0);

    await until(() => expect(events.inbound).toHaveLength(1));
    expect(events.inbound[0]).toMatchObject({ from: TO, to: FROM, text: "one three", numSegments: 2 });
  });

  it("answers ESME_RX_T_APPN when the handler throws, and the SMSC's retry completes the message", async () => {
    await startCarrier();
    await until(() => expect(smsc.boundSessions).toHaveLength(1));
    const part = (seq: number, text: string) =>
      smsc.deliver({
        source_addr: TO,
        destination_addr: FROM,
        esm_class: 0x40,
        short_message: Buffer.from([0x05, 0x00, 0x03, 7, 2, seq, ...Buffer.from(text)]),
      });

    events.failInbound = 1;
    expect(await part(1, "Hello, ")).toBe(0);
    expect(await part(2, "world")).toBe(0x64);
    expect(events.inbound).toHaveLength(0);

    expect(await part(2, "world")).toBe(0); // the SMSC retries the refused part
    expect(events.inbound.map((message) => message.text)).toEqual(["Hello, world"]);
    expect(logLines.join("")).toContain("deliver_sm not handled");
  });
});

describe("connection", () => {
  it("when the SMSC drops the connection, reconnects and submits again", async () => {
    const carrier = await startCarrier();
    expect(await carrier.submit(outbound("Before"))).toMatchObject({ ok: true });

    smsc.dropConnections();
    await until(() => expect(logLines.join("")).toContain("connection closed; reconnecting"));
    // Submitted while the carrier is between connections: it waits for the new bind.
    expect(await carrier.submit(outbound("After"))).toMatchObject({ ok: true });

    expect(smsc.binds).toHaveLength(2);
    expect(smsc.submits.map((submit) => submit.decoded.message)).toEqual(["Before", "After"]);
  });

  it("a submit waiting for its resp when the connection drops is a temporary CONNECTION_LOST", async () => {
    const carrier = await startCarrier();
    await until(() => expect(smsc.boundSessions).toHaveLength(1));
    smsc.answer = () => ({ silent: true });

    const pending = carrier.submit(outbound("Lost"));
    await until(() => expect(smsc.submits).toHaveLength(1));
    smsc.dropConnections();

    expect(await pending).toMatchObject({ ok: false, temporary: true, code: "CONNECTION_LOST" });
  });

  it("sends enquire_link every enquireLinkSeconds, and reconnects when they go unanswered", async () => {
    await startCarrier({ enquireLinkSeconds: 0.08 });
    await until(() => expect(smsc.enquireLinks.length).toBeGreaterThanOrEqual(2));
    expect(smsc.binds).toHaveLength(1);

    smsc.answerEnquireLink = false;
    await until(() => expect(smsc.binds.length).toBeGreaterThanOrEqual(2));
    expect(logLines.join("")).toContain("enquire_link unanswered");
  });

  it("stop() unbinds and closes; later submits are refused as temporary", async () => {
    const carrier = await startCarrier();
    expect(await carrier.submit(outbound("Hi"))).toMatchObject({ ok: true });

    await carrier.stop();

    expect(smsc.unbinds).toHaveLength(1);
    await until(() => expect(smsc.boundSessions).toHaveLength(0));
    expect(await carrier.submit(outbound("Late"))).toMatchObject({ ok: false, temporary: true, code: "NOT_BOUND" });
    expect(smsc.binds).toHaveLength(1); // no reconnect after stop
  });
});
