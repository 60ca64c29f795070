// Fitting media to a route's limits, checked by decoding what comes out with sharp: its type, its size against
// the limit, its dimensions, the EXIF orientation applied and the metadata gone, animation kept; the refusals in
// words with nothing left behind; and no more than two fits decoding pictures at once.
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { fitMedia, fitSlots, type FitLimits, Semaphore } from "../../lib/media/fit-media";
import { type SniffedType, sniffMediaType } from "../../lib/media/media-types";
import { buildMediaFixtures, type MediaFixture, type MediaFixtures } from "../helpers/media-fixtures";

const MB = 1024 * 1024;
const LIMITS: FitLimits = { imageMaxBytes: 600 * 1024, messageMaxBytes: 5 * MB };

let fixtures: MediaFixtures;
let root: string;
let tempDir: string;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), "parley-fit-media-"));
  fixtures = await buildMediaFixtures(path.join(root, "fixtures"));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

beforeEach(async () => {
  tempDir = await mkdtemp(path.join(root, "temp-"));
});

afterEach(async () => {
  await rm(tempDir, { recursive: true, force: true });
});

async function typeOf(file: string): Promise<SniffedType> {
  const sniffed = await sniffMediaType((await readFile(file)).subarray(0, 4100));
  if (!sniffed.ok) throw new Error(sniffed.reason);
  return sniffed.type;
}

async function fit(file: string, limits: FitLimits = LIMITS) {
  const bytes = await readFile(file);
  return fitMedia({ path: file, type: await typeOf(file), size: bytes.length, limits, tempDir });
}

async function fitFixture(fixture: MediaFixture, limits: FitLimits = LIMITS) {
  return fit(fixture.path, limits);
}

async function fitted(result: Awaited<ReturnType<typeof fitMedia>>) {
  if (!result.ok) throw new Error(result.reason);
  const meta = await sharp(result.path, { animated: true }).metadata();
  const bytesOnDisk = (await readFile(result.path)).length;
  return { ...result, meta, bytesOnDisk };
}

/** Writes `bytes` under the fixtures' directory and returns the path. */
async function extra(name: string, bytes: Buffer): Promise<string> {
  const file = path.join(fixtures.dir, name);
  await writeFile(file, bytes);
  return file;
}

function noise(width: number, height: number, channels: 3 | 4 = 3) {
  return sharp({
    create: {
      width,
      height,
      channels,
      background: { r: 128, g: 128, b: 128, alpha: 1 },
      noise: { type: "gaussian", mean: 128, sigma: 50 },
    },
  });
}

describe("fitMedia, images", () => {
  it("turns a 4000×3000 PNG of several MB into a JPEG under 600 KB of the same shape", async () => {
    const out = await fitted(await fitFixture(fixtures.largePng));
    expect(out).toMatchObject({ contentType: "image/jpeg", changed: true });
    expect(out.meta.format).toBe("jpeg");
    expect(out.bytesOnDisk).toBe(out.size);
    expect(out.size).toBeLessThanOrEqual(600 * 1024);
    expect([out.width, out.height]).toEqual([out.meta.width, out.meta.height]);
    expect(out.meta.width / out.meta.height).toBeCloseTo(4 / 3, 2);
    expect(out.meta.width).toBeGreaterThan(600);
    expect(path.dirname(out.path)).toBe(tempDir);
    // The original is left as it was.
    expect((await readFile(fixtures.largePng.path)).length).toBe(fixtures.largePng.size);
  });

  it("keeps a PNG a PNG when a modest resize is enough", async () => {
    const file = await extra("modest.png", await noise(300, 300).png().toBuffer());
    const size = (await readFile(file)).length;
    const limit = Math.round(size * 0.6);
    const out = await fitted(await fit(file, { imageMaxBytes: limit, messageMaxBytes: 5 * MB }));
    expect(out).toMatchObject({ contentType: "image/png", changed: true });
    expect(out.meta.format).toBe("png");
    expect(out.size).toBeLessThanOrEqual(limit);
    expect(out.meta.width).toBeLessThan(300);
    expect(out.meta.width).toBeGreaterThanOrEqual(150);
  });

  it("turns a transparent PNG that must shrink a lot into a JPEG, white where it was transparent", async () => {
    // Noise, its left half fully transparent.
    const { data, info } = await noise(800, 600, 4).raw().toBuffer({ resolveWithObject: true });
    for (let y = 0; y < info.height; y++) {
      for (let x = 0; x < info.width / 2; x++) data[(y * info.width + x) * 4 + 3] = 0;
    }
    const picture = await sharp(data, { raw: { width: 800, height: 600, channels: 4 } })
      .png()
      .toBuffer();
    expect(picture.length).toBeGreaterThan(500 * 1024);
    const file = await extra("transparent.png", picture);
    const out = await fitted(await fit(file, { imageMaxBytes: 60 * 1024, messageMaxBytes: 5 * MB }));
    expect(out).toMatchObject({ contentType: "image/jpeg", changed: true });
    expect(out.size).toBeLessThanOrEqual(60 * 1024);
    const topLeft = await sharp(out.path).extract({ left: 2, top: 2, width: 1, height: 1 }).raw().toBuffer();
    expect([...topLeft].every((channel) => channel > 235)).toBe(true);
  });

  it("turns a photo upright by its EXIF orientation and drops its metadata", async () => {
    expect((await sharp(fixtures.rotatedJpeg.path).metadata()).orientation).toBe(6);
    const out = await fitted(await fitFixture(fixtures.rotatedJpeg));
    expect(out).toMatchObject({ contentType: "image/jpeg", width: 800, height: 1200, changed: true });
    expect([out.meta.width, out.meta.height]).toEqual([800, 1200]);
    expect(out.meta.orientation).toBeUndefined();
    expect(out.meta.exif).toBeUndefined();
    // The red corner, top left as stored, is top right once upright (a quarter turn clockwise).
    const corner = async (left: number) => [
      ...(await sharp(out.path).extract({ left, top: 10, width: 1, height: 1 }).raw().toBuffer()),
    ];
    const [r, g, b] = await corner(789);
    expect(r).toBeGreaterThan(200);
    expect(g! + b!).toBeLessThan(100);
    expect((await corner(10))[0]).toBeLessThan(120);
  });

  it("sends an image that already fits, in a type MMS carries, as it is", async () => {
    const result = await fitFixture(fixtures.smallPng);
    expect(result).toEqual({
      ok: true,
      path: fixtures.smallPng.path,
      contentType: "image/png",
      size: fixtures.smallPng.size,
      width: 200,
      height: 150,
      changed: false,
    });
    expect(await readdir(tempDir)).toEqual([]);
  });

  it("fits an image to the message limit when that is the smaller one", async () => {
    const out = await fitted(
      await fitFixture(fixtures.largeJpeg, { imageMaxBytes: 5 * MB, messageMaxBytes: 300 * 1024 }),
    );
    expect(out.meta.format).toBe("jpeg");
    expect(out.size).toBeLessThanOrEqual(300 * 1024);
  });

  it("turns WebP and AVIF into JPEG even when they fit, and an animated WebP into an animated GIF", async () => {
    const webp = await extra("still.webp", await noise(320, 240).webp().toBuffer());
    const fromWebp = await fitted(await fit(webp));
    expect(fromWebp).toMatchObject({ contentType: "image/jpeg", width: 320, height: 240, changed: true });
    expect(fromWebp.meta.format).toBe("jpeg");

    const avif = await extra("still.avif", await noise(160, 120).avif().toBuffer());
    expect((await typeOf(avif)).contentType).toBe("image/avif");
    const fromAvif = await fitted(await fit(avif));
    expect(fromAvif.meta.format).toBe("jpeg");

    const frames = await sharp(fixtures.animatedGif.path, { animated: true }).webp({ loop: 0 }).toBuffer();
    const moving = await fitted(await fit(await extra("moving.webp", frames)));
    expect(moving).toMatchObject({ contentType: "image/gif", width: 120, height: 90, changed: true });
    expect(moving.meta.format).toBe("gif");
    expect(moving.meta.pages).toBe(6);

    // Smaller than the shortest edge a picture is shrunk to, and still converted.
    const tiny = await fitted(await fit(await extra("tiny.webp", await noise(40, 30).webp().toBuffer())));
    expect(tiny).toMatchObject({ contentType: "image/jpeg", width: 40, height: 30 });
  });

  it("sends a small animated GIF as it is, and shrinks a big one keeping every frame and its timing", async () => {
    const small = await fitFixture(fixtures.animatedGif);
    expect(small).toMatchObject({ ok: true, path: fixtures.animatedGif.path, changed: false, width: 120, height: 90 });

    const big = await fitted(await fitFixture(fixtures.bigAnimatedGif));
    expect(fixtures.bigAnimatedGif.size).toBeGreaterThan(600 * 1024);
    expect(big).toMatchObject({ contentType: "image/gif", changed: true });
    expect(big.size).toBeLessThanOrEqual(600 * 1024);
    expect(big.meta.format).toBe("gif");
    expect(big.meta.pages).toBe(10);
    expect(big.meta.delay).toEqual(Array(10).fill(100));
    expect(big.height).toBe(big.meta.pageHeight);
    expect(big.width).toBeLessThan(300);
  });

  it("refuses an animated GIF that cannot shrink under the limit and stay animated, leaving nothing behind", async () => {
    const result = await fitFixture(fixtures.bigAnimatedGif, { imageMaxBytes: 3 * 1024, messageMaxBytes: 5 * MB });
    expect(result).toEqual({ ok: false, reason: "the animated image cannot be brought under 3 KB and stay animated" });
    expect(await readdir(tempDir)).toEqual([]);
  });

  it("refuses a picture that cannot be brought under a tiny limit, leaving nothing behind", async () => {
    const result = await fitFixture(fixtures.largeJpeg, { imageMaxBytes: 400, messageMaxBytes: 5 * MB });
    expect(result).toEqual({ ok: false, reason: "the image cannot be brought under 400 bytes" });
    expect(await readdir(tempDir)).toEqual([]);
  });

  it("refuses a broken image with the reason, leaving nothing behind", async () => {
    const whole = await readFile(fixtures.largeJpeg.path);
    const file = await extra("truncated.jpg", whole.subarray(0, Math.round(whole.length / 2)));
    const result = await fit(file);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toMatch(/^the image\/jpeg image could not be read \(.+\)$/);
    expect(await readdir(tempDir)).toEqual([]);
  });
});

describe("fitMedia, video, audio and files", () => {
  it("sends them as they are under the message limit and refuses them over it, in words", async () => {
    const small = await fitFixture(fixtures.smallMp4);
    expect(small).toEqual({
      ok: true,
      path: fixtures.smallMp4.path,
      contentType: "video/mp4",
      size: 64 * 1024,
      width: null,
      height: null,
      changed: false,
    });
    expect(await fitFixture(fixtures.bigMp4)).toEqual({ ok: false, reason: "7.4 MB video/mp4, over the 5 MB limit" });
    expect(await fitFixture(fixtures.pdf)).toMatchObject({ ok: true, contentType: "application/pdf", changed: false });
    expect(await fitFixture(fixtures.pdf, { imageMaxBytes: 100, messageMaxBytes: 100 })).toEqual({
      ok: false,
      reason: "142 bytes application/pdf, over the 100 bytes limit",
    });
    expect(await readdir(tempDir)).toEqual([]);
  });
});

describe("how many fits run at once", () => {
  it("lets no more than `limit` of the works run at once, and all of them finish", async () => {
    const slots = new Semaphore(2);
    let running = 0;
    let most = 0;
    const work = async (n: number) => {
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 10));
      running--;
      return n * 2;
    };
    const results = await Promise.all([1, 2, 3, 4, 5, 6].map((n) => slots.run(() => work(n))));
    expect(results).toEqual([2, 4, 6, 8, 10, 12]);
    expect(most).toBe(2);
    expect([slots.active, slots.waiting]).toEqual([0, 0]);
    await expect(slots.run(() => Promise.reject(new Error("broken")))).rejects.toThrow("broken");
    expect(slots.active).toBe(0);
  });

  it("decodes at most two images at once however many fits are asked for", async () => {
    let most = 0;
    let queued = 0;
    const sampler = setInterval(() => {
      most = Math.max(most, fitSlots.active);
      queued = Math.max(queued, fitSlots.waiting);
    }, 5);
    try {
      const results = await Promise.all(
        [fixtures.largeJpeg, fixtures.largeJpeg, fixtures.rotatedJpeg, fixtures.largeJpeg].map((f) => fitFixture(f)),
      );
      expect(results.every((r) => r.ok)).toBe(true);
    } finally {
      clearInterval(sampler);
    }
    expect(fitSlots.limit).toBe(2);
    expect(most).toBe(2);
    expect(queued).toBeGreaterThan(0);
  });
});
