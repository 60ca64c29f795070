import { randomUUID } from "node:crypto";
import { mkdir, rm } from "node:fs/promises";
import path from "node:path";
import sharp, { type Metadata, type Sharp, type SharpOptions } from "sharp";
import { describeBytes, type SniffedType } from "./media-types";

// Fitting one medium to a route's limits before it is sent. Images are turned upright (EXIF orientation), their
// metadata dropped (a phone's photo carries where it was taken), and re-encoded smaller until they fit; animated
// GIFs stay animated. Video, audio and files are never re-encoded: they fit or they are refused, with the reason.
// Memory stays bounded whatever the image: sharp reads from the file path and writes to a file, and at most a few
// fits run at once (`fitSlots`), since each one decodes a whole picture.

export interface FitLimits {
  imageMaxBytes: number;
  messageMaxBytes: number;
}

export type FitMediaResult =
  | {
      ok: true;
      path: string;
      contentType: string;
      size: number;
      width: number | null;
      height: number | null;
      changed: boolean;
    }
  | { ok: false; reason: string };

/** A counting semaphore: at most `limit` of the `run` calls are working at once, the rest wait their turn. */
export class Semaphore {
  #active = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(public limit: number) {}

  get active(): number {
    return this.#active;
  }

  get waiting(): number {
    return this.#waiting.length;
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.#active < this.limit) this.#active++;
    // The slot is handed over by the one that leaves (`#active` stays counted for the newcomer).
    else await new Promise<void>((resolve) => this.#waiting.push(resolve));
    try {
      return await work();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#active--;
    }
  }
}

/** The fits that may decode images at once in this process (two: a picture can take tens of MB while decoded). */
export const fitSlots = new Semaphore(2);

/** The image types sent as they are when they already fit; any other image is converted. */
const SENT_AS_IS = new Set(["image/jpeg", "image/png", "image/gif"]);
/** JPEG qualities tried at one size, best first. */
const QUALITIES = [82, 70, 58, 46];
/** A picture is not shrunk below this long edge (it would not be worth sending): the reason is given instead. */
const MIN_EDGE = 64;
/** A PNG is kept a PNG only if it fits at no less than this scale; a JPEG keeps more of a picture below it. */
const MIN_PNG_SCALE = 0.5;
const MAX_ROUNDS = 6;
/** What a JPEG takes a pixel at the top quality, generously (photos take 0.2 to 0.5 bytes, noise more). */
const JPEG_BYTES_PER_PIXEL = 0.5;
/** One encode that runs longer than this is stopped (a pathological input must not hold a slot for ever). */
const ENCODE_SECONDS = 120;
// "error": a truncated or broken file is refused, while a libjpeg warning (common in phones' files) is not.
const OPEN: SharpOptions = { failOn: "error" };

interface Encoded {
  size: number;
  width: number;
  height: number;
}

/** Fits one medium (from the file at `input.path`) to `input.limits`; a new file under `tempDir` when changed. */
export async function fitMedia(input: {
  path: string;
  type: SniffedType;
  size: number;
  limits: FitLimits;
  tempDir: string;
}): Promise<FitMediaResult> {
  if (input.type.kind !== "image") {
    const over = overMessageLimit(input.size, input.type.contentType, input.limits);
    return over ? { ok: false, reason: over } : unchanged(input, null, null);
  }
  return fitSlots.run(() => fitImage(input));
}

/**
 * Why a medium that is never re-encoded (video, audio, a file) cannot go, judged by its size alone: "7.4 MB
 * video/mp4, over the 5 MB limit"; null when it fits.
 */
export function overMessageLimit(size: number, contentType: string, limits: FitLimits): string | null {
  if (size <= limits.messageMaxBytes) return null;
  return `${describeBytes(size)} ${contentType}, over the ${describeBytes(limits.messageMaxBytes)} limit`;
}

function unchanged(
  input: { path: string; type: SniffedType; size: number },
  width: number | null,
  height: number | null,
) {
  return {
    ok: true as const,
    path: input.path,
    contentType: input.type.contentType,
    size: input.size,
    width,
    height,
    changed: false,
  };
}

async function fitImage(input: {
  path: string;
  type: SniffedType;
  size: number;
  limits: FitLimits;
  tempDir: string;
}): Promise<FitMediaResult> {
  const limit = Math.min(input.limits.imageMaxBytes, input.limits.messageMaxBytes);
  let meta: Metadata;
  try {
    meta = await sharp(input.path, { ...OPEN, animated: true }).metadata();
  } catch (error) {
    return { ok: false, reason: unreadable(input.type, error) };
  }
  const pages = meta.pages ?? 1;
  const frameHeight = meta.pageHeight ?? meta.height;
  const upright = (meta.orientation ?? 1) <= 1;
  const animated = pages > 1 && (meta.format === "gif" || meta.format === "webp");
  // Camera metadata (EXIF with its GPS position, XMP, IPTC) never leaves with a picture: one that carries any is
  // re-encoded even when it fits.
  const metadata = Boolean(meta.exif || meta.xmp || meta.iptc);
  if (SENT_AS_IS.has(input.type.contentType) && upright && !metadata && input.size <= limit) {
    return unchanged(input, meta.width, frameHeight);
  }
  await mkdir(input.tempDir, { recursive: true });
  const base = path.join(input.tempDir, `fit-${randomUUID()}`);
  try {
    const result = animated
      ? await fitAnimated(input.path, base, { width: meta.width, height: frameHeight }, input.size, limit)
      : await fitStill(input, base, meta, limit);
    if (!result.ok) await removeAttempts(base);
    return result;
  } catch (error) {
    await removeAttempts(base);
    return { ok: false, reason: unreadable(input.type, error) };
  }
}

function unreadable(type: SniffedType, error: unknown): string {
  const detail = error instanceof Error ? error.message.split("\n")[0] : String(error);
  return `the ${type.contentType} image could not be read (${detail})`;
}

async function removeAttempts(base: string): Promise<void> {
  await Promise.all([".png", ".jpg", ".gif"].map((ext) => rm(base + ext, { force: true })));
}

/** The scale that should bring `size` bytes under `limit`, bytes growing with the pixel count. */
function scaleFor(size: number, limit: number): number {
  return Math.sqrt(limit / size) * 0.95;
}

function resized(pipeline: Sharp, width: number, scale: number): Sharp {
  return scale < 1 ? pipeline.resize({ width: Math.max(1, Math.round(width * scale)) }) : pipeline;
}

async function encodeStill(
  source: string,
  out: string,
  format: "png" | "jpeg",
  options: { uprightWidth: number; scale: number; quality: number; hasAlpha: boolean },
): Promise<Encoded> {
  // rotate() with no angle turns the picture upright by its EXIF orientation, before the resize.
  let pipeline = resized(sharp(source, OPEN).rotate(), options.uprightWidth, options.scale);
  if (format === "jpeg") {
    // JPEG has no transparency: what was transparent shows white, as on most phones' message screens.
    if (options.hasAlpha) pipeline = pipeline.flatten({ background: "#ffffff" });
    pipeline = pipeline.jpeg({ quality: options.quality });
  } else {
    pipeline = pipeline.png({ compressionLevel: 9 });
  }
  const info = await pipeline.timeout({ seconds: ENCODE_SECONDS }).toFile(out);
  return { size: info.size, width: info.width, height: info.height };
}

async function fitStill(
  input: { path: string; type: SniffedType; size: number },
  base: string,
  meta: Metadata,
  limit: number,
): Promise<FitMediaResult> {
  const uprightWidth = meta.autoOrient?.width ?? meta.width;
  const uprightHeight = meta.autoOrient?.height ?? meta.height;
  const longEdge = Math.max(uprightWidth, uprightHeight);
  const hasAlpha = meta.hasAlpha;
  const done = (out: string, contentType: string, encoded: Encoded): FitMediaResult => ({
    ok: true,
    path: out,
    contentType,
    size: encoded.size,
    width: encoded.width,
    height: encoded.height,
    changed: true,
  });

  // PNG (and a still GIF) stays lossless when a modest resize is enough; the file's own size is the estimate.
  if (input.type.contentType === "image/png" || input.type.contentType === "image/gif") {
    const out = `${base}.png`;
    let scale = input.size <= limit ? 1 : scaleFor(input.size, limit);
    for (let attempt = 0; attempt < 2 && scale >= MIN_PNG_SCALE; attempt++) {
      const encoded = await encodeStill(input.path, out, "png", { uprightWidth, scale, quality: 0, hasAlpha });
      if (encoded.size <= limit) return done(out, "image/png", encoded);
      scale *= scaleFor(encoded.size, limit);
    }
    await rm(out, { force: true });
  }

  const out = `${base}.jpg`;
  // Where to start. A picture far bigger than the limit can hold is not encoded at full size first: that is the
  // slowest encode and the one that takes the most memory. A JPEG's own size predicts its re-encoded size; for
  // anything else a generous bytes-per-pixel budget does.
  let scale = 1;
  if (input.type.contentType === "image/jpeg") {
    if (input.size > limit * 3) scale = scaleFor(input.size, limit);
  } else {
    const budget = limit / JPEG_BYTES_PER_PIXEL;
    if (uprightWidth * uprightHeight > budget * 2) scale = Math.sqrt(budget / (uprightWidth * uprightHeight));
  }
  // A guess that leaves most of the limit unused gets one try at a larger picture.
  let mayGrow = scale < 1;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    if (scale < 1 && longEdge * scale < MIN_EDGE) break;
    let topSize = 0;
    let grow = false;
    for (const quality of QUALITIES) {
      const encoded = await encodeStill(input.path, out, "jpeg", { uprightWidth, scale, quality, hasAlpha });
      if (quality === QUALITIES[0]) topSize = encoded.size;
      if (encoded.size <= limit) {
        grow = mayGrow && encoded.size < limit * 0.4;
        if (!grow) return done(out, "image/jpeg", encoded);
        break;
      }
      // Lower qualities save maybe half: twice the limit needs a smaller picture.
      if (encoded.size > limit * 2) break;
    }
    mayGrow = false;
    scale = grow
      ? Math.min(1, scale * scaleFor(topSize, limit))
      : scale * Math.min(0.85, Math.max(0.25, scaleFor(topSize, limit)));
  }
  return { ok: false, reason: `the image cannot be brought under ${describeBytes(limit)}` };
}

async function fitAnimated(
  source: string,
  base: string,
  frame: { width: number; height: number },
  size: number,
  limit: number,
): Promise<FitMediaResult> {
  const out = `${base}.gif`;
  const longEdge = Math.max(frame.width, frame.height);
  let scale = size <= limit ? 1 : scaleFor(size, limit);
  // Fewer colours as the rounds go: they cost less than pixels do in a moving picture.
  const colours = [256, 128, 64, 32];
  for (let round = 0; round < MAX_ROUNDS; round++) {
    if (scale < 1 && longEdge * scale < MIN_EDGE) break;
    const pipeline = resized(sharp(source, { ...OPEN, animated: true }), frame.width, scale).gif({
      colours: colours[Math.min(round, colours.length - 1)],
      // The least effort: five times faster than the default for a few per cent more bytes.
      effort: 1,
    });
    const info = await pipeline.timeout({ seconds: ENCODE_SECONDS }).toFile(out);
    const frameHeight = info.pageHeight ?? info.height;
    if (info.size <= limit) {
      return {
        ok: true,
        path: out,
        contentType: "image/gif",
        size: info.size,
        width: info.width,
        height: frameHeight,
        changed: true,
      };
    }
    scale *= Math.min(0.9, scaleFor(info.size, limit));
  }
  return {
    ok: false,
    reason: `the animated image cannot be brought under ${describeBytes(limit)} and stay animated`,
  };
}
