/* eslint-disable @typescript-eslint/no-explicit-any -- envelopes read loosely in assertions */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { existsSync, readdirSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../helpers/server";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database";
import { call, createTestAccount, randomNumber, releaseFactories, type TestAccount } from "../helpers/factories";
import { has, waitForSdrs, waitUntil } from "../helpers/wait-for";
import { portalCookie } from "../helpers/portal-session";
import { buildMediaFixtures, type MediaFixture, type MediaFixtures } from "../helpers/media-fixtures";
import { startMediaServer, type MediaServer } from "../helpers/media-server";
import { createUser } from "../../lib/accounts/manage-accounts";
import { db } from "../../lib/db/client";

// MMS media end to end, on the real server with its worker and the simulator carrier: uploads, /media/{id}, sends
// whose media are fetched once, checked by their bytes and fitted under the route's limit (the simulator fetches
// the copies as an MMS centre would, and its SDR says what it got), the refusals in words, media kept across a
// restart and removed by retention.

const PASSWORD = "correct horse battery";
let dataDir: string;
let fixtures: MediaFixtures;
let media: MediaServer;
let database: TestDatabase;
let server: RunningServer;
let account: TestAccount;
let other: TestAccount;
let cookie: string;

const env = () => ({
  PARLEY_WORKER: "true",
  PARLEY_DATA_DIR: dataDir,
  WORKER_POLL_MS: "50",
  SIMULATOR_RECEIPT_DELAY_MS: "100",
  MEDIA_ALLOW_PRIVATE: "true",
  // Small enough that the 50 MB answer is stopped early, large enough for the 7.4 MB video to be judged by size.
  MEDIA_MAX_BYTES: String(10 * 1024 * 1024),
  MEDIA_FETCH_TIMEOUT_SECONDS: "3",
  MESSAGE_RETENTION_DAYS: "30",
  RETENTION_INTERVAL_SECONDS: "1",
});

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), "parley-media-"));
  fixtures = await buildMediaFixtures(path.join(dataDir, "fixtures"));
  media = await startMediaServer(fixtures);
  // Its own database, so that the server can be stopped and started again on it.
  database = await createTestDatabase();
  server = await startServer({ env: env(), database });
  account = await createTestAccount(server, { name: "Pictures", numbers: 3, rateLimitPerSecond: 50 });
  other = await createTestAccount(server, { name: "Other" });
  const email = `admin-${account.accountId}@media.test`;
  await createUser({ accountId: account.accountId, email, password: PASSWORD, role: "admin" });
  cookie = await portalCookie(server, email, PASSWORD);
}, 120_000);

afterAll(async () => {
  await releaseFactories();
  await server?.stop();
  await database?.drop();
  await media?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function upload(
  fixture: MediaFixture | { name: string; bytes: Buffer },
  options: { headers?: Record<string, string>; accountId?: string; field?: string } = {},
) {
  const bytes = "bytes" in fixture ? fixture.bytes : await readFile(fixture.path);
  const form = new FormData();
  form.append(options.field ?? "file", new Blob([new Uint8Array(bytes)]), fixture.name);
  const accountId = options.accountId ?? account.accountId;
  // The form sets its own Content-Type (multipart, with its boundary).
  const { "content-type": _json, ...headers } = options.headers ?? account.headers;
  const response = await fetch(`${server.baseUrl}/v3/media?accountId=${accountId}`, {
    method: "POST",
    headers,
    body: form,
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, json: JSON.parse(text) as any };
}

/** A medium as a carrier or a phone fetches it: no credentials. */
async function fetchMedium(url: string, headers: Record<string, string> = {}) {
  const response = await fetch(url.replace(/^https?:\/\/[^/]+/, server.baseUrl), { headers });
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}

async function send(body: Record<string, unknown>, from = account.numbers[0]!) {
  const res = await call(server, "POST", "/v3/messages", {
    headers: account.headers,
    body: { accountId: account.accountId, from, ...body },
  });
  return res;
}

async function listed(messageId: string) {
  const res = await call(server, "GET", `/v3/messages?accountId=${account.accountId}&count=1000`, {
    headers: account.headers,
  });
  return res.json.data.results.find((m: any) => m.messageId === messageId);
}

describe("POST /v3/media", () => {
  it("keeps an upload and serves it at its URL with its real type, size, range answers and safe headers", async () => {
    const res = await upload(fixtures.smallPng);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ status: "MediaUploadSuccessful", statusCode: 200 });
    const { mediaId, url, contentType, size } = res.json.data;
    expect(mediaId).toMatch(/^md_[A-Za-z0-9]{24}$/);
    expect(url).toMatch(new RegExp(`/media/${mediaId}$`));
    expect(contentType).toBe("image/png");
    expect(size).toBe(fixtures.smallPng.size);

    const whole = await fetchMedium(url);
    expect(whole.status).toBe(200);
    expect(whole.bytes.equals(await readFile(fixtures.smallPng.path))).toBe(true);
    expect(whole.headers.get("content-type")).toBe("image/png");
    expect(whole.headers.get("content-length")).toBe(String(size));
    expect(whole.headers.get("x-content-type-options")).toBe("nosniff");
    expect(whole.headers.get("cache-control")).toMatch(/max-age=\d+/);
    expect(whole.headers.get("accept-ranges")).toBe("bytes");
    expect(whole.headers.get("content-disposition")).toMatch(/^inline/);

    const part = await fetchMedium(url, { range: "bytes=0-99" });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe(`bytes 0-99/${size}`);
    expect(part.bytes.equals(whole.bytes.subarray(0, 100))).toBe(true);
  });

  it("serves a file that is not a picture, video or sound as a download", async () => {
    const res = await upload(fixtures.pdf);
    expect(res.json.data.contentType).toBe("application/pdf");
    const served = await fetchMedium(res.json.data.url);
    expect(served.headers.get("content-disposition")).toMatch(/^attachment/);
  });

  it("reads the type from the bytes: an HTML page named photo.jpg and an SVG are refused", async () => {
    for (const fixture of [fixtures.htmlAsJpeg, fixtures.svg]) {
      const res = await upload(fixture);
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({ status: "InvalidRequest" });
      expect(res.json.data?.detail ?? res.json.detail ?? JSON.stringify(res.json)).toMatch(/file: /);
    }
  });

  it("refuses a file over MEDIA_MAX_BYTES, a form without `file`, and a JSON body, in words", async () => {
    const tooBig = await upload({ name: "big.bin", bytes: Buffer.alloc(11 * 1024 * 1024, 1) });
    expect(tooBig.status).toBe(400);
    expect(JSON.stringify(tooBig.json)).toMatch(/over the 10 MB a medium may weigh/);
    const noFile = await upload(fixtures.smallPng, { field: "picture" });
    expect(noFile.status).toBe(400);
    expect(JSON.stringify(noFile.json)).toMatch(/file: is required/);
    const json = await call(server, "POST", `/v3/media?accountId=${account.accountId}`, {
      headers: account.headers,
      body: { url: "https://example.com/a.png" },
    });
    expect(json.status).toBe(400);
    expect(JSON.stringify(json.json)).toMatch(/multipart\/form-data/);
    // The server is none the worse.
    expect((await upload(fixtures.smallPng)).status).toBe(200);
  });

  it("needs credentials of the account it names", async () => {
    const anonymous = await upload(fixtures.smallPng, { headers: {} });
    expect(anonymous.status).toBe(401);
    const foreign = await upload(fixtures.smallPng, { accountId: other.accountId });
    expect(foreign.status).toBe(403);
    const res = await fetch(`${server.baseUrl}/v3/media`, { method: "POST", headers: account.headers });
    expect((await res.json()).status).toBe("MissingAccountId");
  });

  it("takes the portal's session from the portal's own pages, and refuses it from another site", async () => {
    const own = await upload(fixtures.smallPng, { headers: { cookie, origin: server.baseUrl } });
    expect(own.status).toBe(200);
    const crossSite = await upload(fixtures.smallPng, { headers: { cookie, origin: "https://evil.example" } });
    expect(crossSite.status).toBe(403);
    expect(crossSite.json.status).toBe("CrossSiteRequest");
  });

  it("keeps a file's UTF-8 name, however long, and serves it with that name", async () => {
    const name = `${"🌹".repeat(99)}x🌹.png`;
    const res = await upload({ name, bytes: await readFile(fixtures.smallPng.path) });
    expect(res.status).toBe(200);
    const served = await fetchMedium(res.json.data.url);
    expect(served.status).toBe(200);
    expect(served.headers.get("content-disposition")).toContain("filename*=UTF-8''%F0%9F%8C%B9");
  });

  it("leaves no file behind when the client gives up half-way through an upload", async () => {
    const boundary = "----parley-test";
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.png"\r\nContent-Type: image/png\r\n\r\n`,
    );
    await new Promise<void>((resolve) => {
      const req = httpRequest(`${server.baseUrl}/v3/media?accountId=${account.accountId}`, {
        method: "POST",
        headers: {
          apikey: account.apiKey,
          "content-type": `multipart/form-data; boundary=${boundary}`,
          "content-length": String(head.length + 4 * 1024 * 1024),
        },
      });
      req.on("error", () => resolve());
      req.write(head);
      req.write(Buffer.alloc(1024 * 1024, 7), () => setTimeout(() => (req.destroy(), resolve()), 300));
    });
    const temp = path.join(dataDir, "media-tmp");
    await waitUntil(
      "the upload's file to be removed",
      () => !existsSync(temp) || readdirSync(temp).length === 0,
      10_000,
    );
    expect((await upload(fixtures.smallPng)).status).toBe(200);
  });

  it("answers 404 for an unknown medium and refuses methods other than GET and HEAD", async () => {
    expect((await fetch(`${server.baseUrl}/media/md_AAAAAAAAAAAAAAAAAAAAAAAA`)).status).toBe(404);
    expect((await fetch(`${server.baseUrl}/media/nothing`)).status).toBe(404);
    const { url } = (await upload(fixtures.smallPng)).json.data;
    const put = await fetch(url.replace(/^https?:\/\/[^/]+/, server.baseUrl), { method: "DELETE" });
    expect(put.status).toBe(405);
  });
});

describe("sending MMS", () => {
  it("fetches an outside picture once for all destinations, fits it under 600 KB, and the carrier gets the copy", async () => {
    const url = media.url(`/${fixtures.largePng.name}`);
    const to = [randomNumber(), randomNumber(), randomNumber()];
    const res = await send({ toArray: to, body: "The new menu", media: [url], bulk: false });
    expect(res.status).toBe(200);
    const ids: string[] = res.json.data.messageInfo.map((m: any) => m.messageId);
    for (const id of ids) await waitForSdrs(server, account, id, has("message_sent"), 30_000);
    const fetches = media.requests.filter((r) => r.path === `/${fixtures.largePng.name}`);
    expect(fetches).toHaveLength(1);

    const first = await listed(ids[0]!);
    expect(first.messageType).toBe("mms");
    expect(first.media).toHaveLength(1);
    expect(first.media[0]).toMatch(/\/media\/md_[A-Za-z0-9]{24}$/);
    // Every destination carries the same fitted copy.
    for (const id of ids.slice(1)) expect((await listed(id)).media).toEqual(first.media);

    const copy = await fetchMedium(first.media[0]);
    expect(copy.status).toBe(200);
    expect(copy.bytes.length).toBeLessThanOrEqual(600 * 1024);
    const meta = await sharp(copy.bytes).metadata();
    expect(["jpeg", "png"]).toContain(meta.format);
    expect(copy.headers.get("content-type")).toBe(`image/${meta.format}`);
    // What the simulated MMS centre fetched is that copy.
    const sdrs = await waitForSdrs(server, account, ids[0]!, has("message_sent"));
    const sent = sdrs.find((r) => r.status === "message_sent")!;
    expect(sent.statusDetails).toMatch(/MMS delivered by the simulator \(media 1: image\/(jpeg|png), \d+ KB\)/);
  });

  it("sends an uploaded picture, and a small one that fits goes as it is", async () => {
    const { url } = (await upload(fixtures.smallPng)).json.data;
    const res = await send({ to: randomNumber(), media: [url] });
    const id = res.json.data.messageInfo[0].messageId;
    await waitForSdrs(server, account, id, has("message_sent"), 30_000);
    expect((await listed(id)).media).toEqual([url]);
  });

  it("refuses at once a medium of another account", async () => {
    const theirs = await upload(fixtures.smallPng, { headers: other.headers, accountId: other.accountId });
    expect(theirs.status).toBe(200);
    const res = await send({ to: randomNumber(), media: [theirs.json.data.url] });
    expect(res.status).toBe(400);
    expect(res.json.status).toBe("InvalidRequest");
    expect(JSON.stringify(res.json)).toMatch(/'media\[0\]' names no medium of this account/);
  });

  it("fails only the message whose medium cannot be fitted or fetched, saying which and why", async () => {
    const from = account.numbers[1]!;
    const cases: [string, RegExp][] = [
      [media.url(`/${fixtures.bigMp4.name}`), /^media 1: 7\.4 MB video\/mp4, over the 5 MB limit$/],
      [media.url("/huge"), /^media 1: .*over the 10 MB a medium may weigh/],
      [media.url(`/${fixtures.htmlAsJpeg.name}`), /^media 1: .*text\/html/],
      [media.url("/not-found"), /^media 1: .*404/],
    ];
    const sent = [];
    for (const [url] of cases) {
      const res = await send({ to: randomNumber(), body: "See attached", media: [url] }, from);
      expect(res.status).toBe(200);
      sent.push(res.json.data.messageInfo[0].messageId as string);
    }
    const text = await send({ to: randomNumber(), body: "Plain text goes on" }, from);
    const textId = text.json.data.messageInfo[0].messageId;
    for (const [index, id] of sent.entries()) {
      const sdrs = await waitForSdrs(server, account, id, has("failed"), 30_000);
      expect(sdrs.find((r) => r.status === "failed")!.statusDetails).toMatch(cases[index]![1]);
      expect((await listed(id)).status).toBe("failed");
    }
    await waitForSdrs(server, account, textId, has("message_sent"), 30_000);
  });

  it("sends a small photo without the camera's metadata (its location)", async () => {
    const withGps = await sharp({ create: { width: 320, height: 240, channels: 3, background: "#406080" } })
      .withExif({ IFD0: { Make: "Parley test camera" }, IFD3: { GPSLatitudeRef: "N", GPSLatitude: "48/1 51/1 0/1" } })
      .jpeg()
      .toBuffer();
    expect((await sharp(withGps).metadata()).exif).toBeDefined();
    const { url } = (await upload({ name: "here.jpg", bytes: withGps })).json.data;
    const res = await send({ to: randomNumber(), media: [url] });
    const id = res.json.data.messageInfo[0].messageId;
    await waitForSdrs(server, account, id, has("message_sent"), 30_000);
    const sentUrl = (await listed(id)).media[0];
    expect(sentUrl).not.toBe(url);
    const copy = await fetchMedium(sentUrl);
    const meta = await sharp(copy.bytes).metadata();
    expect([meta.width, meta.height]).toEqual([320, 240]);
    expect(meta.exif).toBeUndefined();
    expect(copy.bytes.includes(Buffer.from("Parley test camera"))).toBe(false);
  });

  it("keeps an animated GIF animated", async () => {
    const res = await send({ to: randomNumber(), media: [media.url(`/${fixtures.bigAnimatedGif.name}`)] });
    const id = res.json.data.messageInfo[0].messageId;
    await waitForSdrs(server, account, id, has("message_sent"), 30_000);
    const copy = await fetchMedium((await listed(id)).media[0]);
    const meta = await sharp(copy.bytes, { animated: true }).metadata();
    expect(meta.format).toBe("gif");
    expect(meta.pages).toBeGreaterThan(1);
    expect(copy.bytes.length).toBeLessThanOrEqual(600 * 1024);
  });
});

describe("media kept and removed", () => {
  it("survive a restart of the server", async () => {
    const { url, mediaId } = (await upload(fixtures.smallPng)).json.data;
    const before = await fetchMedium(url);
    await server.stop();
    server = await startServer({ env: env(), database });
    const after = await fetch(`${server.baseUrl}/media/${mediaId}`);
    expect(after.status).toBe(200);
    expect(Buffer.from(await after.arrayBuffer()).equals(before.bytes)).toBe(true);
  });

  it("are removed with their messages by retention, bytes and all", async () => {
    const { url, mediaId } = (await upload(fixtures.smallPng)).json.data;
    const res = await send({ to: randomNumber(), media: [url] });
    const id = res.json.data.messageInfo[0].messageId;
    await waitForSdrs(server, account, id, has("dlr_received"), 30_000);
    const row = await db().media.findUniqueOrThrow({ where: { id: mediaId } });
    const file = path.join(dataDir, "media", row.storageKey.slice(0, 2), row.storageKey);
    expect(existsSync(file)).toBe(true);
    // 40 days old: the only thing a test cannot wait for.
    const old = new Date(Date.now() - 40 * 86_400_000);
    await db().message.update({ where: { id }, data: { createdAt: old } });
    await db().media.update({ where: { id: mediaId }, data: { createdAt: old, updatedAt: old } });
    await waitUntil(
      "the medium to be pruned",
      async () => (await db().media.findUnique({ where: { id: mediaId } })) === null,
      20_000,
    );
    expect((await fetch(`${server.baseUrl}/media/${mediaId}`)).status).toBe(404);
    expect(existsSync(file)).toBe(false);
  });
});
