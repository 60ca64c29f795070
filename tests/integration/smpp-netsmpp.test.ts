// The SMPP carrier against an SMSC nobody here wrote: Net::SMPP (Debian's libnet-smpp-perl) running
// tests/integration/fixtures/net-smpp-smsc.pl, which prints what it receives as JSON lines.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import pino from "pino";
import type { Carrier, CarrierEvents, DeliveryReceipt, InboundMessage, OutboundPart } from "../../lib/carriers/carrier";
import { createSmppCarrier } from "../../lib/carriers/smpp/smpp-carrier";
import { encodeGsm7 } from "../../lib/segments/gsm7";
import { splitSegments } from "../../lib/segments/split-segments";

const SCRIPT = fileURLToPath(new URL("./fixtures/net-smpp-smsc.pl", import.meta.url));
const SYSTEM_ID = "parley";
const PASSWORD = "n3t-smpp";
const FROM = "15550001111";
const TO = "4915112345678";

/** Polls an assertion until it holds: loopback answers within milliseconds, so poll often. */
function until(assertion: () => void): Promise<void> {
  return vi.waitFor(assertion, { interval: 5, timeout: 5_000 });
}

type SmscEvent = Record<string, unknown> & { event: string };

/** Fails (never skips) when the SMSC cannot run, saying what to install. */
function requireNetSmpp(): void {
  const probe = spawnSync("perl", ["-MNet::SMPP", "-MJSON::PP", "-e", "1"], { encoding: "utf8" });
  if (probe.error || probe.status !== 0) {
    const why = probe.error ? `perl could not be run (${probe.error.message})` : probe.stderr.trim().split("\n")[0];
    throw new Error(
      `The Net::SMPP SMSC for this test is missing: ${why}. Install it with: apt-get install libnet-smpp-perl`,
    );
  }
}

let smsc: ChildProcess;
let carrier: Carrier;
const seen: SmscEvent[] = [];
const receipts: DeliveryReceipt[] = [];
const stderr: string[] = [];

function eventsOf(kind: string): SmscEvent[] {
  return seen.filter((event) => event.event === kind);
}

function part(text: string, overrides: Partial<OutboundPart> = {}): OutboundPart {
  return {
    messageId: "msg_1",
    segmentNumber: 1,
    totalSegments: 1,
    concatReference: 0,
    from: FROM,
    to: TO,
    text,
    encoding: "GSM7",
    media: [],
    ...overrides,
  };
}

beforeAll(async () => {
  requireNetSmpp();
  smsc = spawn("perl", [SCRIPT, SYSTEM_ID, PASSWORD], { stdio: ["ignore", "pipe", "pipe"] });
  smsc.stderr!.on("data", (chunk: Buffer) => stderr.push(chunk.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    smsc.once("exit", (code) => reject(new Error(`the Net::SMPP SMSC exited (${code}): ${stderr.join("")}`)));
    createInterface({ input: smsc.stdout! }).on("line", (line) => {
      const event = JSON.parse(line) as SmscEvent;
      seen.push(event);
      if (event.event === "listening") resolve(Number(event.port));
    });
  });

  const events: CarrierEvents = {
    onReceipt: async (receipt) => void receipts.push(receipt),
    onInbound: async (_message: InboundMessage) => {},
  };
  carrier = createSmppCarrier(
    {
      host: "127.0.0.1",
      port,
      systemId: SYSTEM_ID,
      password: PASSWORD,
      reconnect: { minMs: 10, maxMs: 50 },
      submitTimeoutMs: 5_000,
    },
    { log: pino({ level: "silent" }) },
  );
  await carrier.start(events);
});

afterAll(async () => {
  await carrier?.stop();
  smsc?.kill();
});

describe("SMPP carrier ↔ Net::SMPP SMSC", () => {
  it("binds as a transceiver, SMPP 3.4", async () => {
    await until(() => expect(eventsOf("bind")).toHaveLength(1));
    expect(eventsOf("bind")[0]).toMatchObject({ system_id: SYSTEM_ID, interface_version: 0x34, ok: true });
  });

  it("submits GSM7, two-part UCS-2 and Latin-1 parts the SMSC reads as intended, and takes their receipts", async () => {
    const gsm = "Hello [Net::SMPP] €1";
    const ucs2 = "Доставка: ваш заказ №4521 передан курьеру и будет у вас сегодня между 14:00 и 18:00. 🚚";
    const latin = "Crème brûlée: 3½ ¥";
    const split = splitSegments(ucs2);
    expect(split.encoding).toBe("UCS2");
    expect(split.parts).toHaveLength(2);

    const results = [
      await carrier.submit(part(gsm)),
      ...(await Promise.all(
        split.parts.map((text, i) =>
          carrier.submit(
            part(text, { encoding: "UCS2", concatReference: 200, segmentNumber: i + 1, totalSegments: 2 }),
          ),
        ),
      )),
      await carrier.submit(part(latin, { encoding: "LATIN1" })),
    ];

    const ids = results.map((result) => (result.ok ? result.carrierMessageId : `failed: ${result.detail}`));
    expect(ids.every((id) => /^NS\d{6}$/.test(id))).toBe(true);

    await until(() => expect(eventsOf("submit_sm")).toHaveLength(4));
    const byId = new Map(eventsOf("submit_sm").map((event) => [event.message_id, event]));
    const [gsmSubmit, ucs2First, ucs2Second, latinSubmit] = ids.map((id) => byId.get(id)!);

    for (const submit of [gsmSubmit, ucs2First, ucs2Second, latinSubmit]) {
      expect(submit).toMatchObject({
        source_addr: FROM,
        source_addr_ton: 1,
        source_addr_npi: 1,
        destination_addr: TO,
        dest_addr_ton: 1,
        dest_addr_npi: 1,
        registered_delivery: 1,
      });
    }
    expect(gsmSubmit).toMatchObject({
      data_coding: 0,
      esm_class: 0,
      short_message: Buffer.from(encodeGsm7(gsm)).toString("hex"),
    });
    expect(latinSubmit).toMatchObject({
      data_coding: 3,
      esm_class: 0,
      short_message: Buffer.from(latin, "latin1").toString("hex"),
    });
    const ucs2Texts = [ucs2First, ucs2Second].map((submit, i) => {
      expect(submit).toMatchObject({ data_coding: 8, esm_class: 0x40 });
      const bytes = Buffer.from(String(submit!.short_message), "hex");
      expect([...bytes.subarray(0, 6)]).toEqual([0x05, 0x00, 0x03, 200, 2, i + 1]);
      return bytes.subarray(6).swap16().toString("utf16le");
    });
    expect(ucs2Texts.join("")).toBe(ucs2);

    // One receipt per part, matched by the id submit_sm_resp gave; each deliver_sm was answered with ESME_ROK.
    await until(() => expect(receipts).toHaveLength(4));
    expect(receipts.map((receipt) => receipt.carrierMessageId).sort()).toEqual([...ids].sort());
    for (const receipt of receipts) {
      expect(receipt).toMatchObject({ status: "delivered", carrierCode: "000" });
      expect(receipt.statusMsg).toMatch(
        new RegExp(`^id:${receipt.carrierMessageId} sub:001 dlvrd:001 .* stat:DELIVRD err:000 text:Net::SMPP$`),
      );
    }
    await until(() => expect(eventsOf("deliver_sm_resp")).toHaveLength(4));
    expect(eventsOf("deliver_sm_resp").every((event) => event.status === 0)).toBe(true);
  });

  it("unbinds on stop", async () => {
    await carrier.stop();
    await until(() => expect(eventsOf("unbind")).toHaveLength(1));
    await until(() => expect(eventsOf("closed")).toHaveLength(1));
  });
});
