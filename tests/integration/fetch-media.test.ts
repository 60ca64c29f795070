// Fetching media named by URL from a real HTTP server on 127.0.0.1, as Parley fetches an API caller's mediaUrls
// and a provider's inbound media: what comes back, the refusals in words (addresses, redirects, sizes, time,
// status), nothing left on disk after a failure, and every case of the server carried through sniffing and
// fitting to the copy that would be sent or the reason it would not.
//
// Every server here is on loopback, so "a public host that redirects to a private one" cannot be had offline.
// For those tests one address, 127.0.0.1, is judged public (the stand-in below wraps the guard's
// refusedAddressReason, which fetch-media asks about literal hosts); every other address keeps the real judgement,
// and names are still resolved and judged by the guard's own guardedLookup.
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { fetchMedia, type FetchMediaOptions } from "../../lib/media/fetch-media";
import { fitMedia } from "../../lib/media/fit-media";
import { SNIFF_BYTES, sniffMediaType } from "../../lib/media/media-types";
import { buildMediaFixtures, type MediaFixtures } from "../helpers/media-fixtures";
import { HUGE_BYTES, MEDIA_PASSWORD, MEDIA_USER, type MediaServer, startMediaServer } from "../helpers/media-server";

const guard = vi.hoisted(() => ({ publicStandIn: null as string | null }));
vi.mock("../../lib/webhooks/guard-webhook-url", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../../lib/webhooks/guard-webhook-url")>();
  return {
    ...actual,
    refusedAddressReason: (address: string) =>
      address === guard.publicStandIn ? null : actual.refusedAddressReason(address),
  };
});

const MB = 1024 * 1024;
const LIMITS = { imageMaxBytes: 600 * 1024, messageMaxBytes: 5 * MB };

let fixtures: MediaFixtures;
let server: MediaServer;
let root: string;
let tempDir: string;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), "parley-fetch-media-"));
  fixtures = await buildMediaFixtures(path.join(root, "fixtures"));
  server = await startMediaServer(fixtures);
});

afterAll(async () => {
  await server?.stop();
  await rm(root, { recursive: true, force: true });
});

beforeEach(async () => {
  tempDir = await mkdtemp(path.join(root, "temp-"));
  guard.publicStandIn = null;
  server.requests.length = 0;
  server.bytesSent.clear();
});

afterEach(async () => {
  await rm(tempDir, { recursive: true, force: true });
});

function fetchFrom(pathname: string, options: Partial<FetchMediaOptions> = {}) {
  return fetchMedia({
    url: server.url(pathname),
    allowPrivate: true,
    maxBytes: 25 * MB,
    timeoutMs: 10_000,
    tempDir,
    ...options,
  });
}

const leftOnDisk = () => readdir(tempDir);
const requestedPaths = () => server.requests.map((r) => r.path);
const basicAuth = `Basic ${Buffer.from(`${MEDIA_USER}:${MEDIA_PASSWORD}`).toString("base64")}`;

describe("fetchMedia", () => {
  it("streams a medium into a file under tempDir, with its first bytes, declared type and name", async () => {
    const result = await fetchFrom("/large.png");
    if (!result.ok) throw new Error(result.reason);
    const original = await readFile(fixtures.largePng.path);
    expect(result.size).toBe(original.length);
    expect(path.dirname(result.path)).toBe(tempDir);
    expect((await readFile(result.path)).equals(original)).toBe(true);
    expect(result.head.equals(original.subarray(0, SNIFF_BYTES))).toBe(true);
    expect(result).toMatchObject({
      declaredType: "image/png",
      fileName: "large.png",
      finalUrl: server.url("/large.png"),
    });
  });

  it("creates tempDir when it is not there yet", async () => {
    const nested = path.join(tempDir, "a", "b");
    const result = await fetchFrom("/clip.mp4", { tempDir: nested });
    expect(result.ok && path.dirname(result.path)).toBe(nested);
  });

  it("takes the file name from Content-Disposition, filename* first", async () => {
    const result = await fetchFrom("/named");
    expect(result.ok && result.fileName).toBe("Sommerfest über.png");
  });

  it("follows redirects, relative ones included, up to 3 and no further", async () => {
    const moved = await fetchFrom("/redirect-ok");
    expect(moved).toMatchObject({ ok: true, finalUrl: server.url("/rotated.jpg"), fileName: "rotated.jpg" });
    expect(await fetchFrom("/redirect-chain/3")).toMatchObject({ ok: true, size: fixtures.smallPng.size });
    expect(await fetchFrom("/redirect-chain/4")).toEqual({
      ok: false,
      reason: "more than 3 redirects",
      temporary: false,
    });
    expect(await fetchFrom("/redirect-ok", { maxRedirects: 0 })).toEqual({
      ok: false,
      reason: "more than 0 redirects",
      temporary: false,
    });
    expect(await fetchFrom("/no-location")).toEqual({
      ok: false,
      reason: "answered 302 without a Location to follow",
      temporary: false,
    });
    // The two media fetched, nothing of the refusals.
    expect(await leftOnDisk()).toHaveLength(2);
  });

  it("refuses loopback addresses, by number or by name, before connecting, unless private addresses are allowed", async () => {
    expect(await fetchFrom("/large.png", { allowPrivate: false })).toEqual({
      ok: false,
      reason: "refused: 127.0.0.1 is a loopback address",
      temporary: false,
    });
    const byName = await fetchMedia({
      url: `http://localhost:${server.port}/large.png`,
      allowPrivate: false,
      maxBytes: 25 * MB,
      timeoutMs: 10_000,
      tempDir,
    });
    expect(byName.ok).toBe(false);
    expect(!byName.ok && byName.reason).toMatch(
      /^refused: localhost resolves to (127\.0\.0\.1|::1) is a loopback address$/,
    );
    expect(requestedPaths()).toEqual([]);
    expect(await leftOnDisk()).toEqual([]);
  });

  it("checks every redirect target: private, link-local and IPv6 loopback targets are refused, the first hop only asked", async () => {
    guard.publicStandIn = "127.0.0.1";
    const strict = { allowPrivate: false };
    expect(await fetchFrom("/redirect-chain/1", strict)).toMatchObject({ ok: true, size: fixtures.smallPng.size });
    server.requests.length = 0;

    expect(await fetchFrom("/redirect-private", strict)).toEqual({
      ok: false,
      reason: "refused: 127.0.0.2 is a loopback address",
      temporary: false,
    });
    expect(await fetchFrom("/redirect-metadata", strict)).toEqual({
      ok: false,
      reason: "refused: 169.254.169.254 is a linkLocal address",
      temporary: false,
    });
    expect(await fetchFrom("/redirect-ipv6", strict)).toEqual({
      ok: false,
      reason: "refused: ::1 is a loopback address",
      temporary: false,
    });
    const byName = await fetchFrom("/redirect-localhost", strict);
    expect(!byName.ok && byName.reason).toMatch(
      /^refused: localhost resolves to (127\.0\.0\.1|::1) is a loopback address$/,
    );
    expect(await fetchFrom("/redirect-ftp", strict)).toEqual({
      ok: false,
      reason: "refused: ftp URLs are not fetched (http and https only)",
      temporary: false,
    });
    expect(requestedPaths()).toEqual([
      "/redirect-private",
      "/redirect-metadata",
      "/redirect-ipv6",
      "/redirect-localhost",
      "/redirect-ftp",
    ]);
    // The same redirect, private addresses allowed: followed to the end.
    expect(await fetchFrom("/redirect-private", { allowPrivate: true })).toMatchObject({
      ok: false,
      reason: "the connection was refused",
      temporary: true,
    });
    expect(await fetchFrom("/redirect-localhost", { allowPrivate: true })).toMatchObject({
      ok: true,
      size: fixtures.largePng.size,
    });
    expect(await leftOnDisk()).toHaveLength(2);
  });

  it("refuses what is not an http(s) URL, and URLs carrying credentials", async () => {
    const base = { allowPrivate: true, maxBytes: MB, timeoutMs: 5_000, tempDir };
    expect(await fetchMedia({ ...base, url: "file:///etc/passwd" })).toEqual({
      ok: false,
      reason: "refused: file URLs are not fetched (http and https only)",
      temporary: false,
    });
    expect(await fetchMedia({ ...base, url: "not a url" })).toEqual({
      ok: false,
      reason: "not a URL",
      temporary: false,
    });
    expect(
      await fetchMedia({
        ...base,
        url: `http://${MEDIA_USER}:${MEDIA_PASSWORD}@127.0.0.1:${server.port}/auth/small.png`,
      }),
    ).toEqual({ ok: false, reason: "refused: a URL with a user name or password in it", temporary: false });
    expect(requestedPaths()).toEqual([]);
  });

  it("refuses a declared Content-Length over the limit at once, without reading the body", async () => {
    const result = await fetchFrom("/huge");
    expect(result).toEqual({
      ok: false,
      reason: "over the 25 MB a medium may weigh (the answer declares 50 MB)",
      temporary: false,
    });
    expect(await leftOnDisk()).toEqual([]);
    // What the server managed to push into socket buffers before the connection was dropped, far from 50 MB.
    expect(server.bytesSent.get("/huge") ?? 0).toBeLessThan(HUGE_BYTES / 4);
  });

  it("stops a body without Content-Length as soon as it passes the limit, and removes what was written", async () => {
    const result = await fetchFrom("/huge-chunked", { maxBytes: 2 * MB });
    expect(result).toEqual({
      ok: false,
      reason: "over the 2 MB a medium may weigh (more than 2 MB came)",
      temporary: false,
    });
    expect(await leftOnDisk()).toEqual([]);
    expect(server.bytesSent.get("/huge-chunked") ?? 0).toBeLessThan(HUGE_BYTES / 4);
  });

  it("keeps only what Content-Length declares when the server sends more", async () => {
    const result = await fetchFrom("/lying-length");
    if (!result.ok) throw new Error(result.reason);
    expect((await readFile(result.path)).equals(await readFile(fixtures.smallPng.path))).toBe(true);
  });

  it("calls a body cut short of its Content-Length a temporary failure", async () => {
    expect(await fetchFrom("/short-length")).toEqual({
      ok: false,
      reason: "the answer was cut off before its end",
      temporary: true,
    });
    expect(await leftOnDisk()).toEqual([]);
  });

  it("gives up on a body that never ends when the time is up, the whole fetch counted", async () => {
    const started = performance.now();
    const result = await fetchFrom("/never-ends", { timeoutMs: 1_500 });
    const elapsed = performance.now() - started;
    expect(result).toEqual({ ok: false, reason: "timed out after 1.5 s", temporary: true });
    expect(elapsed).toBeGreaterThanOrEqual(1_400);
    expect(elapsed).toBeLessThan(4_000);
    expect(await leftOnDisk()).toEqual([]);
    expect(await fetchFrom("/never-ends", { timeoutMs: 30_000, maxBytes: 100 })).toEqual({
      ok: false,
      reason: "over the 100 bytes a medium may weigh (more than 100 bytes came)",
      temporary: false,
    });
  });

  it("calls 4xx permanent and 5xx temporary; a flaky server's second answer is the medium", async () => {
    expect(await fetchFrom("/not-found")).toEqual({ ok: false, reason: "answered 404", temporary: false });
    expect(await fetchFrom("/gone")).toEqual({ ok: false, reason: "answered 410", temporary: false });
    expect(await fetchFrom("/flaky")).toEqual({ ok: false, reason: "answered 500", temporary: true });
    expect(await fetchFrom("/flaky")).toMatchObject({ ok: true, size: fixtures.smallPng.size });
    expect(await fetchFrom("/empty")).toEqual({ ok: false, reason: "answered with no bytes", temporary: false });
    expect(await leftOnDisk()).toHaveLength(1);
  });

  it("calls a connection that cannot be made temporary", async () => {
    const closed = await startMediaServer(fixtures);
    const url = closed.url("/large.png");
    await closed.stop();
    const result = await fetchMedia({ url, allowPrivate: true, maxBytes: MB, timeoutMs: 5_000, tempDir });
    expect(result).toEqual({ ok: false, reason: "the connection was refused", temporary: true });
  });

  it("asks for headers per hop: a provider's credentials reach its own host and not the one it redirects to", async () => {
    expect(await fetchFrom("/auth/small.png")).toEqual({ ok: false, reason: "answered 401", temporary: false });

    const asked: string[] = [];
    const headers = (url: URL) => {
      asked.push(url.toString());
      return url.hostname === "127.0.0.1" ? { authorization: basicAuth } : undefined;
    };
    expect(await fetchFrom("/auth/small.png", { headers })).toMatchObject({ ok: true, size: fixtures.smallPng.size });

    server.requests.length = 0;
    asked.length = 0;
    expect(await fetchFrom("/auth/elsewhere", { headers })).toEqual({
      ok: false,
      reason: "answered 401",
      temporary: false,
    });
    expect(asked).toEqual([server.url("/auth/elsewhere"), `http://localhost:${server.port}/auth/small.png`]);
    expect(server.requests.map((r) => [r.path, r.headers.authorization ?? null])).toEqual([
      ["/auth/elsewhere", basicAuth],
      ["/auth/small.png", null],
    ]);
  });
});

/** A medium from the server carried the way Parley carries it: fetched, sniffed, fitted. */
async function carry(pathname: string) {
  const fetched = await fetchFrom(pathname);
  if (!fetched.ok) return { reason: fetched.reason };
  const sniffed = await sniffMediaType(fetched.head);
  if (!sniffed.ok) return { reason: sniffed.reason, declaredType: fetched.declaredType, fileName: fetched.fileName };
  const fitted = await fitMedia({
    path: fetched.path,
    type: sniffed.type,
    size: fetched.size,
    limits: LIMITS,
    tempDir,
  });
  if (!fitted.ok) return { reason: fitted.reason };
  const meta = sniffed.type.kind === "image" ? await sharp(fitted.path, { animated: true }).metadata() : null;
  return { fitted, meta, original: fetched.path };
}

describe("every medium of the server, fetched, sniffed and fitted", () => {
  it("fits a large PNG into a JPEG under 600 KB of the same shape", async () => {
    const { fitted, meta } = await carry("/large.png");
    expect(fitted).toMatchObject({ ok: true, contentType: "image/jpeg", changed: true });
    expect(meta?.format).toBe("jpeg");
    expect(fitted!.size).toBeLessThanOrEqual(LIMITS.imageMaxBytes);
    expect(meta!.width / meta!.height).toBeCloseTo(4 / 3, 2);
  });

  it("fits a large JPEG under 600 KB", async () => {
    const { fitted, meta } = await carry("/large.jpg");
    expect(meta?.format).toBe("jpeg");
    expect(fitted!.size).toBeLessThanOrEqual(LIMITS.imageMaxBytes);
  });

  it("turns a photo taken on its side upright, following redirects to it", async () => {
    for (const pathname of ["/rotated.jpg", "/redirect-ok"]) {
      const { fitted, meta } = await carry(pathname);
      expect(fitted).toMatchObject({ ok: true, contentType: "image/jpeg", width: 800, height: 1200, changed: true });
      expect([meta?.width, meta?.height, meta?.orientation]).toEqual([800, 1200, undefined]);
    }
  });

  it("sends a small animated GIF as it is, and shrinks a big one keeping it animated", async () => {
    const small = await carry("/animated.gif");
    expect(small.fitted).toMatchObject({ ok: true, contentType: "image/gif", changed: false, path: small.original });
    expect(small.meta?.pages).toBe(6);
    const big = await carry("/animated-big.gif");
    expect(big.fitted).toMatchObject({ ok: true, contentType: "image/gif", changed: true });
    expect(big.fitted!.size).toBeLessThanOrEqual(LIMITS.imageMaxBytes);
    expect(big.meta?.format).toBe("gif");
    expect(big.meta?.pages).toBe(10);
  });

  it("sends a small PNG, a small video, a PDF and a vCard as they are", async () => {
    for (const [pathname, contentType] of [
      ["/small.png", "image/png"],
      ["/lying-length", "image/png"],
      ["/clip.mp4", "video/mp4"],
      ["/doc.pdf", "application/pdf"],
      ["/contact.vcf", "text/vcard"],
    ]) {
      const { fitted, original } = await carry(pathname!);
      expect(fitted).toMatchObject({ ok: true, contentType, changed: false, path: original });
    }
  });

  it("refuses a video over the message limit, HTML named photo.jpg, and SVG, in words", async () => {
    expect(await carry("/clip-big.mp4")).toEqual({ reason: "7.4 MB video/mp4, over the 5 MB limit" });
    expect(await carry("/photo.jpg")).toEqual({
      reason: "text/html is not a type MMS can carry",
      declaredType: "image/jpeg",
      fileName: "photo.jpg",
    });
    expect(await carry("/drawing.svg")).toMatchObject({ reason: "image/svg+xml is not a type MMS can carry" });
  });

  it("ends the misbehaving answers in their reasons", async () => {
    expect(await carry("/huge")).toEqual({ reason: "over the 25 MB a medium may weigh (the answer declares 50 MB)" });
    expect(await carry("/not-found")).toEqual({ reason: "answered 404" });
    expect(await carry("/auth/doc.pdf")).toEqual({ reason: "answered 401" });
    expect(await carry("/short-length")).toEqual({ reason: "the answer was cut off before its end" });
  });
});
