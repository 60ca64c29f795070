import { randomBytes } from "node:crypto";
import { copyFile, mkdir, open, rename, rm, unlink } from "node:fs/promises";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { type ByteRange, MediaMissingError, checkByteRange, checkMediaKey } from "./media-store-errors";

// Media in a folder of the server's own disk: <dir>/<first two characters of the key>/<key>. The two-character
// folders keep any one folder from holding every medium. A put writes a temporary file beside the final one, flushes
// it to the disk, then renames it into place: a reader (or a restart after a crash) finds the whole medium or none
// of it, never a file still being written.

export class LocalMediaStore {
  readonly kind = "local" as const;

  constructor(readonly dir: string) {}

  /** Where the medium `key` lives on disk. */
  pathOf(key: string): string {
    checkMediaKey(key);
    return join(this.dir, key.slice(0, 2), key);
  }

  async put(
    key: string,
    source: { path: string } | { bytes: Buffer },
    meta: { contentType: string; size: number },
  ): Promise<void> {
    const final = this.pathOf(key);
    await mkdir(join(this.dir, key.slice(0, 2)), { recursive: true });
    // A name no other put can take, starting with "." so that a listing of the folder passes over it.
    const temp = join(this.dir, key.slice(0, 2), `.${key}.${process.pid}.${randomBytes(6).toString("hex")}.partial`);
    try {
      if ("path" in source) {
        await copyFile(source.path, temp);
      } else {
        await writeWhole(temp, source.bytes);
      }
      const written = await flushToDisk(temp);
      if (written !== meta.size) {
        throw new Error(`the medium "${key}" is ${written} bytes, not the ${meta.size} it was said to be`);
      }
      await rename(temp, final);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
  }

  async open(key: string, range?: ByteRange): Promise<Readable> {
    if (range) checkByteRange(range);
    const path = this.pathOf(key);
    // Opened here, not inside the stream, so that a missing medium is known before anything is answered.
    const handle = await open(path, "r").catch((error: NodeJS.ErrnoException) => {
      throw error.code === "ENOENT" ? new MediaMissingError(key) : error;
    });
    return handle.createReadStream(range ? { start: range.start, end: range.end } : {});
  }

  async remove(keys: string[]): Promise<void> {
    for (const key of keys) {
      await unlink(this.pathOf(key)).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== "ENOENT") throw error;
      });
    }
  }
}

async function writeWhole(path: string, bytes: Buffer): Promise<void> {
  const handle = await open(path, "wx");
  try {
    await handle.writeFile(bytes);
  } finally {
    await handle.close();
  }
}

/** Flushes the file at `path` to the disk (a medium recorded as stored must survive a power cut); its size. */
async function flushToDisk(path: string): Promise<number> {
  const handle = await open(path, "r+");
  try {
    await handle.sync();
    return (await handle.stat()).size;
  } finally {
    await handle.close();
  }
}
