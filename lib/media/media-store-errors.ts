// What both stores (local-media-store.ts, s3-media-store.ts) share with their callers, kept apart from
// media-store.ts, which chooses between them: the stores import this file, never the one that imports them.

/** The medium's bytes are not in the store (never written, removed, or lost with the store's disk or bucket). */
export class MediaMissingError extends Error {
  constructor(readonly key: string) {
    super(`the medium "${key}" is not in the store`);
    this.name = "MediaMissingError";
  }
}

// A key becomes a file name (local) or the end of an object name (S3): letters, digits, "_", "-" and inner dots only,
// so that no key can climb out of the store's folder ("../x") or reach another prefix ("a/b").
const SAFE_KEY = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$/;

/** Throws unless `key` is one a store may use as the name of a medium's bytes. */
export function checkMediaKey(key: string): void {
  if (!SAFE_KEY.test(key) || key.includes("..")) {
    throw new RangeError(`"${key}" is not a medium's storage key (letters, digits, ".", "_" and "-" only)`);
  }
}

/** The inclusive byte range of a read: `{ start: 0, end: 99 }` is the first 100 bytes. */
export interface ByteRange {
  start: number;
  end: number;
}

/** Throws unless `range` is a readable inclusive range (integers, 0 <= start <= end). */
export function checkByteRange(range: ByteRange): void {
  const { start, end } = range;
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start) {
    throw new RangeError(`bytes ${start}-${end} is not a byte range`);
  }
}
