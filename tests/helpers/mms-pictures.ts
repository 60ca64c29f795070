import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import sharp, { type Metadata } from "sharp";
import { expect } from "vitest";
import { buildMediaFixtures } from "./media-fixtures";
import { startMediaServer, type MediaServer } from "./media-server";

// The pictures MMS tests send and receive through a provider: a phone-sized PNG of several MB that must be fitted
// (resized, made a JPEG) to go out under 600 KB, and a small JPEG photo that goes as it is, offered by a real HTTP
// server on loopback; and what a test reads back from Parley's /media/ addresses.

/** What a route takes by default (MEDIA_IMAGE_MAX_BYTES). */
export const IMAGE_MAX_BYTES = 600 * 1024;
/** Parley's address of one of its media. */
export const PARLEY_MEDIA = /^http:\/\/127\.0\.0\.1:\d+\/media\/md_[A-Za-z0-9]{24}$/;

export interface MmsPictures {
  server: MediaServer;
  /** 4000×3000, several MB. */
  largePngUrl: string;
  largePngSize: number;
  /** 320×240, a few KB. */
  smallJpegUrl: string;
  smallJpeg: Buffer;
  stop(): Promise<void>;
}

export async function startMmsPictures(): Promise<MmsPictures> {
  const dir = await mkdtemp(path.join(tmpdir(), "parley-mms-"));
  const fixtures = await buildMediaFixtures(dir);
  const smallJpeg = await sharp({ create: { width: 320, height: 240, channels: 3, background: "#c05020" } })
    .jpeg({ quality: 80 })
    .toBuffer();
  await writeFile(path.join(dir, "photo-small.jpg"), smallJpeg);
  const server = await startMediaServer(fixtures);
  return {
    server,
    largePngUrl: server.url(fixtures.largePng.name),
    largePngSize: fixtures.largePng.size,
    smallJpegUrl: server.url("photo-small.jpg"),
    smallJpeg,
    async stop() {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export interface ReadMedium {
  status: number;
  contentType: string;
  bytes: Buffer;
  text: string;
}

/** GET on one of Parley's media addresses, as a carrier or a webhook receiver would fetch it (no session). */
export async function readMedium(url: string): Promise<ReadMedium> {
  const res = await fetch(url);
  const bytes = Buffer.from(await res.arrayBuffer());
  return { status: res.status, contentType: res.headers.get("content-type") ?? "", bytes, text: bytes.toString() };
}

/** Reads a medium Parley gave a carrier and checks it is a picture a route takes: JPEG or PNG, under 600 KB. */
export async function readFittedImage(url: string): Promise<{ bytes: Buffer; metadata: Metadata }> {
  expect(url).toMatch(PARLEY_MEDIA);
  const medium = await readMedium(url);
  expect(medium.status, medium.text.slice(0, 200)).toBe(200);
  expect(medium.contentType).toMatch(/^image\/(jpeg|png)$/);
  expect(medium.bytes.length).toBeLessThan(IMAGE_MAX_BYTES);
  const metadata = await sharp(medium.bytes).metadata();
  expect(metadata.format).toBe(medium.contentType === "image/png" ? "png" : "jpeg");
  return { bytes: medium.bytes, metadata };
}
