import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { readdir, rm, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { env, mediaAllowPrivate } from "../env";
import { fetchMedia, type FetchMediaOptions, type FetchMediaResult } from "./fetch-media";

// Media in passing (an upload being received, a fetch, a fitted copy before it is stored) are files under the data
// directory, never whole buffers: memory stays bounded by the number of media at work, not by their size.

let made: string | null = null;

/** The folder of media in passing (created on first use). */
export function mediaTempDir(): string {
  const dir = resolve(env().PARLEY_DATA_DIR, "media-tmp");
  if (made !== dir) {
    mkdirSync(dir, { recursive: true });
    made = dir;
  }
  return dir;
}

/** A fresh file name in that folder. */
export function mediaTempPath(suffix = ""): string {
  return join(mediaTempDir(), `${Date.now().toString(36)}-${randomBytes(8).toString("hex")}${suffix}`);
}

/** Removes files in passing, whether or not they are still there. */
export async function removeTemp(...paths: (string | null | undefined)[]): Promise<void> {
  await Promise.all(paths.filter((p): p is string => !!p).map((p) => rm(p, { force: true })));
}

/** Removes what a stopped process left in passing (older than `olderThanMs`): run when a worker starts. */
export async function sweepMediaTemp(olderThanMs = 3600_000): Promise<number> {
  const dir = mediaTempDir();
  let removed = 0;
  for (const name of await readdir(dir)) {
    const file = join(dir, name);
    const info = await stat(file).catch(() => null);
    if (info && Date.now() - info.mtimeMs > olderThanMs) {
      await rm(file, { force: true, recursive: true });
      removed++;
    }
  }
  return removed;
}

/** One medium fetched into a file in passing, under the deployment's media settings (guard, size cap, timeout). */
export function fetchToTemp(url: string, headers?: FetchMediaOptions["headers"]): Promise<FetchMediaResult> {
  const e = env();
  return fetchMedia({
    url,
    allowPrivate: mediaAllowPrivate(),
    maxBytes: e.MEDIA_MAX_BYTES,
    timeoutMs: e.MEDIA_FETCH_TIMEOUT_SECONDS * 1000,
    headers,
    tempDir: mediaTempDir(),
  });
}
