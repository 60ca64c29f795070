import { createHash } from "node:crypto";
import { copyFile, link, mkdir, mkdtemp, readFile, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { fileURLToPath } from "node:url";
import path from "node:path";
import sharp, { type Sharp } from "sharp";

// The media an MMS user sends and the ones Parley must refuse, made with sharp when a test starts (nothing binary
// is committed): a phone-sized noisy PNG, a photo taken on its side (EXIF orientation 6), animated GIFs that fit
// and one that does not, videos under and over the 5 MB message limit, a PDF, an HTML page named photo.jpg and an
// SVG. Each is written to a file under the given directory.

export interface MediaFixture {
  /** The file's name under the directory (also the path the media server offers it at). */
  name: string;
  path: string;
  size: number;
}

export interface MediaFixtures {
  dir: string;
  /** 4000×3000 PNG of blocky noise, several MB: needs resizing and turning into JPEG to fit 600 KB. */
  largePng: MediaFixture;
  /** 4000×3000 JPEG of the same picture, a few MB. */
  largeJpeg: MediaFixture;
  /** 1200×800 JPEG stored on its side with EXIF orientation 6: upright it is 800×1200, its red corner top right. */
  rotatedJpeg: MediaFixture;
  /** 120×90, 6 frames, a few KB: fits as it is. */
  animatedGif: MediaFixture;
  /** 300×300, 10 frames of noise, about 1.2 MB: over 600 KB, shrinks and stays animated. */
  bigAnimatedGif: MediaFixture;
  /** 200×150 PNG with a transparent half, a few KB. */
  smallPng: MediaFixture;
  /** An ISO media file (ftyp "isom" + mdat) of 64 KB: video/mp4 by its bytes. */
  smallMp4: MediaFixture;
  /** The same of 7.4 MB: over a 5 MB message. */
  bigMp4: MediaFixture;
  pdf: MediaFixture;
  /** HTML under a name that lies (photo.jpg). */
  htmlAsJpeg: MediaFixture;
  svg: MediaFixture;
  vcard: MediaFixture;
}

/** Bytes of an MP4 that file-type recognises: an ftyp box (major brand isom) and an mdat box filling `size`. */
export function mp4Bytes(size: number): Buffer {
  const bytes = Buffer.alloc(size);
  bytes.writeUInt32BE(32, 0);
  bytes.write("ftyp", 4, "latin1");
  bytes.write("isom", 8, "latin1");
  bytes.writeUInt32BE(0x200, 12);
  bytes.write("isomiso2avc1mp41", 16, "latin1");
  bytes.writeUInt32BE(size - 32, 32);
  bytes.write("mdat", 36, "latin1");
  // Something that is not all zeros, cheaply.
  for (let i = 40; i < size; i += 4096) bytes[i] = i & 0xff;
  return bytes;
}

/** Blocky noise (every 4×4 block one random colour): compresses as a PNG, not enough to fit without resizing. */
async function noisePicture(width: number, height: number): Promise<Sharp> {
  const raw = await sharp({
    create: {
      width: width / 4,
      height: height / 4,
      channels: 3,
      background: "#808080",
      noise: { type: "gaussian", mean: 128, sigma: 60 },
    },
  })
    .raw()
    .toBuffer();
  return sharp(raw, { raw: { width: width / 4, height: height / 4, channels: 3 } }).resize(width, height, {
    kernel: "nearest",
  });
}

/** Frames of a square moving across a plain background, as one tall raw RGB picture. */
function movingSquareFrames(width: number, height: number, frames: number): Buffer {
  const pixels = Buffer.alloc(width * height * frames * 3);
  for (let f = 0; f < frames; f++) {
    const left = Math.round(((width - 20) * f) / Math.max(1, frames - 1));
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const i = ((f * height + y) * width + x) * 3;
        const inSquare = x >= left && x < left + 20 && y >= 35 && y < 55;
        pixels[i] = inSquare ? 230 : 40;
        pixels[i + 1] = inSquare ? 60 : 120;
        pixels[i + 2] = inSquare ? 40 : 200;
      }
    }
  }
  return pixels;
}

/**
 * The fixtures in `dir`. They are built once per version of this file and machine, in a folder beside the system's
 * temporary files, and linked into `dir`: the big noisy pictures take seconds of CPU each, which a suite of many
 * files would otherwise spend again and again beside timing-sensitive tests.
 */
export async function buildMediaFixtures(dir: string): Promise<MediaFixtures> {
  const cached = await cachedFixtures();
  await mkdir(dir, { recursive: true });
  const linked: Record<string, unknown> = { dir };
  for (const [key, fixture] of Object.entries(cached)) {
    if (key === "dir") continue;
    const { name } = fixture as MediaFixture;
    const file = path.join(dir, name);
    await rm(file, { force: true });
    await link((fixture as MediaFixture).path, file).catch(() => copyFile((fixture as MediaFixture).path, file));
    linked[key] = { ...(fixture as MediaFixture), path: file };
  }
  return linked as unknown as MediaFixtures;
}

async function cachedFixtures(): Promise<MediaFixtures> {
  const source = await readFile(fileURLToPath(import.meta.url));
  const cache = path.join(
    tmpdir(),
    `parley-media-fixtures-${createHash("sha256").update(source).digest("hex").slice(0, 12)}`,
  );
  const manifest = path.join(cache, "manifest.json");
  const read = async () => JSON.parse(await readFile(manifest, "utf8")) as MediaFixtures;
  try {
    return await read();
  } catch {
    // Built below, in a folder of its own, and put in place in one rename: a reader never sees half of it.
  }
  const building = await mkdtemp(`${cache}-building-`);
  const built = await buildInto(building);
  const moved = JSON.parse(JSON.stringify(built).split(building).join(cache)) as MediaFixtures;
  await writeFile(path.join(building, "manifest.json"), JSON.stringify(moved));
  // Another process may have put its own in place first: then that one is used.
  await rename(building, cache).catch(() => rm(building, { recursive: true, force: true }));
  return read();
}

async function buildInto(dir: string): Promise<MediaFixtures> {
  await mkdir(dir, { recursive: true });
  const write = async (name: string, bytes: Buffer): Promise<MediaFixture> => {
    const file = path.join(dir, name);
    await writeFile(file, bytes);
    return { name, path: file, size: bytes.length };
  };

  const noise = await (await noisePicture(4000, 3000)).png().toBuffer();
  const largePng = await write("large.png", noise);
  const largeJpeg = await write("large.jpg", await sharp(noise).jpeg({ quality: 90 }).toBuffer());

  const rotated = await sharp({ create: { width: 1200, height: 800, channels: 3, background: "#3050a0" } })
    .composite([
      { input: { create: { width: 100, height: 100, channels: 3, background: "#ff0000" } }, left: 0, top: 0 },
    ])
    .jpeg({ quality: 85 })
    .withMetadata({ orientation: 6 })
    .toBuffer();
  const rotatedJpeg = await write("rotated.jpg", rotated);

  const small = movingSquareFrames(120, 90, 6);
  const animatedGif = await write(
    "animated.gif",
    await sharp(small, { raw: { width: 120, height: 90 * 6, channels: 3, pageHeight: 90 } })
      .gif({ delay: Array(6).fill(150), loop: 0 })
      .toBuffer(),
  );
  const bigAnimatedGif = await write(
    "animated-big.gif",
    await sharp({
      create: {
        width: 300,
        height: 300 * 10,
        channels: 3,
        background: "#808080",
        noise: { type: "gaussian", mean: 128, sigma: 60 },
        pageHeight: 300,
      },
    })
      .gif({ delay: Array(10).fill(100), loop: 0, colours: 64, effort: 1 })
      .toBuffer(),
  );

  const smallPng = await write(
    "small.png",
    await sharp({ create: { width: 200, height: 150, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
      .composite([
        { input: { create: { width: 100, height: 150, channels: 4, background: "#22aa44" } }, left: 0, top: 0 },
      ])
      .png()
      .toBuffer(),
  );

  return {
    dir,
    largePng,
    largeJpeg,
    rotatedJpeg,
    animatedGif,
    bigAnimatedGif,
    smallPng,
    smallMp4: await write("clip.mp4", mp4Bytes(64 * 1024)),
    bigMp4: await write("clip-big.mp4", mp4Bytes(Math.round(7.4 * 1024 * 1024))),
    pdf: await write(
      "doc.pdf",
      Buffer.from(
        "%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj\n" +
          "trailer << /Root 1 0 R >>\n%%EOF\n",
      ),
    ),
    htmlAsJpeg: await write(
      "photo.jpg",
      Buffer.from(
        "<!DOCTYPE html><html><head><title>Photo</title></head><body><script>alert(1)</script></body></html>",
      ),
    ),
    svg: await write(
      "drawing.svg",
      Buffer.from(
        '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>',
      ),
    ),
    vcard: await write("contact.vcf", Buffer.from("BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Ada Lovelace\r\nEND:VCARD\r\n")),
  };
}
