import { isAbsolute, resolve } from "node:path";
import type { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { env } from "../env";
import { forgetProcessSingleton, processSingleton } from "../process-singletons";
import { LocalMediaStore } from "./local-media-store";
import type { ByteRange } from "./media-store-errors";
import { S3MediaStore } from "./s3-media-store";

export { MediaMissingError } from "./media-store-errors";

// Where the bytes of every medium Parley sends or receives live (docs/MEDIA.md): a folder of the server's disk, or
// an S3-compatible bucket when several servers must see the same media. The database records each medium's key;
// the store knows nothing else of it.

export interface MediaStore {
  readonly kind: "local" | "s3";
  /** Stores the bytes under `key`, replacing any there; readers see the old bytes or the new, never a part. */
  put(
    key: string,
    source: { path: string } | { bytes: Buffer },
    meta: { contentType: string; size: number },
  ): Promise<void>;
  /** The bytes under `key` (the inclusive `range` of them, if given); throws MediaMissingError when there are none. */
  open(key: string, range?: ByteRange): Promise<Readable>;
  /** Deletes the bytes under each key; a key with none is no error. */
  remove(keys: string[]): Promise<void>;
}

export type MediaStoreConfig = { kind: "local"; dir: string } | { kind: "s3"; bucket: string; prefix: string };

export interface S3ConnectionOptions {
  endpoint?: string;
  region: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  forcePathStyle: boolean;
}

const BUCKET = /^[A-Za-z0-9][A-Za-z0-9._-]{0,254}$/;

/**
 * Reads MEDIA_STORE: "" is the data directory's media/ folder; "file:/path", "file:///path" or a plain path a folder
 * (relative paths from the working directory); "s3://bucket/prefix" a bucket, the prefix optional.
 */
export function parseMediaStore(value: string, dataDir: string): MediaStoreConfig {
  const setting = value.trim();
  if (setting === "") return { kind: "local", dir: resolve(dataDir, "media") };
  if (/^s3:\/\//i.test(setting)) return parseBucket(setting);
  if (/^file:\/\//i.test(setting)) return { kind: "local", dir: fileURLToPath(setting) };
  if (/^file:/i.test(setting)) return { kind: "local", dir: resolve(setting.slice("file:".length)) };
  // "gs://…", "https://…": a store Parley does not speak, not a folder named "https:".
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(setting)) {
    throw new Error(`MEDIA_STORE "${setting}": a folder, file:/path or s3://bucket/prefix was expected`);
  }
  return { kind: "local", dir: isAbsolute(setting) ? setting : resolve(setting) };
}

function parseBucket(setting: string): MediaStoreConfig {
  const rest = setting.slice("s3://".length);
  const slash = rest.indexOf("/");
  const bucket = slash === -1 ? rest : rest.slice(0, slash);
  if (!BUCKET.test(bucket)) {
    throw new Error(`MEDIA_STORE "${setting}": "${bucket}" is not a bucket name (s3://bucket/prefix was expected)`);
  }
  const parts =
    slash === -1
      ? []
      : rest
          .slice(slash + 1)
          .split("/")
          .filter(Boolean);
  if (parts.some((part) => part === "." || part === "..")) {
    throw new Error(`MEDIA_STORE "${setting}": the prefix may not contain "." or ".." folders`);
  }
  // "media", "media/" and "/media/" are the same prefix: every key is put after "media/".
  return { kind: "s3", bucket, prefix: parts.length > 0 ? `${parts.join("/")}/` : "" };
}

/** The store `config` describes; an S3 store connects with `s3Options` (the AWS SDK's defaults when absent). */
export function createMediaStore(config: MediaStoreConfig, s3Options?: S3ConnectionOptions): MediaStore {
  if (config.kind === "local") return new LocalMediaStore(config.dir);
  return new S3MediaStore({
    bucket: config.bucket,
    prefix: config.prefix,
    region: s3Options?.region ?? "us-east-1",
    forcePathStyle: s3Options?.forcePathStyle ?? false,
    endpoint: s3Options?.endpoint,
    accessKeyId: s3Options?.accessKeyId,
    secretAccessKey: s3Options?.secretAccessKey,
  });
}

const SINGLETON = "mediaStore";

/** The process's store, as MEDIA_STORE and MEDIA_S3_* describe it (one client, one set of connections). */
export function mediaStore(): MediaStore {
  return processSingleton(SINGLETON, () => {
    const e = env();
    return createMediaStore(parseMediaStore(e.MEDIA_STORE, e.PARLEY_DATA_DIR), {
      endpoint: e.MEDIA_S3_ENDPOINT,
      region: e.MEDIA_S3_REGION,
      accessKeyId: e.MEDIA_S3_ACCESS_KEY_ID,
      secretAccessKey: e.MEDIA_S3_SECRET_ACCESS_KEY,
      forcePathStyle: e.MEDIA_S3_FORCE_PATH_STYLE,
    });
  });
}

/** Forgets the process's store: the next mediaStore() reads the environment again (tests). */
export function forgetMediaStore(): void {
  forgetProcessSingleton(SINGLETON);
}
