// The latency an MMS adds to a send: the real server (production build) with its worker and the simulator carrier,
// against a fresh database. Each kind has a number of its own, already claimed by the worker (a warm-up text), and
// each send waits until the number's previous one left more than a second before, so that neither claiming nor
// pacing is in the figure. The figure is the `message_sent` SDR's delta (seconds from acceptance to the carrier's
// answer), whose median is compared per kind:
//   SMS                                text only
//   MMS, uploaded picture that fits    a 200×150 PNG uploaded with POST /v3/media: checked, not re-encoded
//   MMS, uploaded photo to fit         a 4000×3000 JPEG of several MB uploaded first: resized and re-encoded
//   MMS, outside photo to fetch        the same JPEG at a URL on 127.0.0.1: fetched, checked, fitted, stored
// The simulator fetches each MMS's media from Parley as an MMS centre would, which is part of the figure.
import { readFile } from "node:fs/promises";
import { startServer } from "../tests/helpers/server";
import { createTestAccount, releaseFactories } from "../tests/helpers/factories";
import { waitForSdrs, has } from "../tests/helpers/wait-for";
import type { MediaFixtures } from "../tests/helpers/media-fixtures";
import type { MediaServer } from "../tests/helpers/media-server";

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export async function measureSendLatency(input: {
  fixtures: MediaFixtures;
  media: MediaServer;
  perKind: number;
}): Promise<void> {
  const { fixtures, media, perKind } = input;
  const server = await startServer({ env: { PARLEY_WORKER: "true", MEDIA_ALLOW_PRIVATE: "true", LOG_LEVEL: "warn" } });
  try {
    const account = await createTestAccount(server, { numbers: 4, rateLimitPerSecond: 1000 });
    const upload = async (path: string, name: string) => {
      const form = new FormData();
      form.append("file", new Blob([new Uint8Array(await readFile(path))]), name);
      const res = await fetch(`${server.baseUrl}/v3/media?accountId=${account.accountId}`, {
        method: "POST",
        headers: { apikey: account.apiKey },
        body: form,
      });
      return ((await res.json()) as { data: { url: string } }).data.url;
    };
    const kinds: [string, () => Promise<Record<string, unknown>>][] = [
      ["SMS", async () => ({ body: "Your table is ready" })],
      ["MMS, uploaded picture that fits", async () => ({ media: [await upload(fixtures.smallPng.path, "a.png")] })],
      ["MMS, uploaded photo to fit", async () => ({ media: [await upload(fixtures.largeJpeg.path, "b.jpg")] })],
      // A new URL each time, so that every send fetches (a URL sent again within 10 minutes is not fetched again).
      [
        "MMS, outside photo to fetch",
        async () => ({ media: [media.url(`/${fixtures.largeJpeg.name}?n=${Math.random()}`)] }),
      ],
    ];
    const medians = new Map<string, number>();
    for (const [index, [label, body]] of kinds.entries()) {
      const from = account.numbers[index]!;
      const sendOne = async (fields: Record<string, unknown>, to: string) => {
        const res = await fetch(`${server.baseUrl}/v3/messages`, {
          method: "POST",
          headers: { apikey: account.apiKey, "content-type": "application/json" },
          body: JSON.stringify({ accountId: account.accountId, from, to, ...fields }),
        });
        const messageId = ((await res.json()) as { data: { messageInfo: { messageId: string }[] } }).data
          .messageInfo[0]!.messageId;
        const sdrs = await waitForSdrs(server, account, messageId, has("message_sent"), 60_000);
        return Number(sdrs.find((r) => r.status === "message_sent")!.delta);
      };
      await sendOne({ body: "warm-up" }, "14155550999");
      const deltas: number[] = [];
      for (let i = 0; i < perKind; i++) {
        const fields = await body();
        await new Promise((resolve) => setTimeout(resolve, 1_100));
        deltas.push(await sendOne(fields, `1415555${String(1000 + i).padStart(4, "0")}`));
      }
      medians.set(label, median(deltas));
      const sms = medians.get("SMS")!;
      console.log(
        `latency ${label}: accepted → message_sent median ${(median(deltas) * 1000).toFixed(0)} ms ` +
          `(min ${(Math.min(...deltas) * 1000).toFixed(0)}, max ${(Math.max(...deltas) * 1000).toFixed(0)}, ` +
          `${perKind} sends)` +
          (label === "SMS" ? "" : `; added to an SMS's: ${((median(deltas) - sms) * 1000).toFixed(0)} ms`),
      );
    }
  } finally {
    await releaseFactories();
    await server.stop();
  }
}
