import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { Readable } from "node:stream";
import { DeleteObjectsCommand, GetObjectCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { type ByteRange, MediaMissingError, checkByteRange, checkMediaKey } from "./media-store-errors";

// Media in an S3-compatible bucket: each medium one object, <prefix><key>. Nothing is listed and nothing is kept on
// the server's disk: a read streams the object (or the asked range) straight through.

export interface S3MediaStoreOptions {
  bucket: string;
  /** "" or ending in "/": put before every key. */
  prefix: string;
  /** An S3-compatible store's address (MinIO, Ceph…); unset: AWS itself. */
  endpoint?: string;
  region: string;
  /** Both or neither; neither: the AWS SDK's own chain (environment, profile, instance role). */
  accessKeyId?: string;
  secretAccessKey?: string;
  forcePathStyle: boolean;
}

// DeleteObjects takes at most this many keys a request.
const DELETE_BATCH = 1000;

export class S3MediaStore {
  readonly kind = "s3" as const;
  readonly bucket: string;
  readonly prefix: string;
  private readonly client: S3Client;

  constructor(options: S3MediaStoreOptions) {
    this.bucket = options.bucket;
    this.prefix = options.prefix;
    const { endpoint, region, accessKeyId, secretAccessKey, forcePathStyle } = options;
    if (Boolean(accessKeyId) !== Boolean(secretAccessKey)) {
      throw new Error("MEDIA_S3_ACCESS_KEY_ID and MEDIA_S3_SECRET_ACCESS_KEY go together: set both or neither");
    }
    this.client = new S3Client({
      region,
      endpoint,
      forcePathStyle,
      credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
      // Since 2025 the SDK sends a streamed body "aws-chunked", with its checksum in a trailer after the bytes.
      // Stores other than AWS do not all understand it, and some keep the chunk framing as the object's content
      // (s3rver does, silently): with an endpoint of its own, a checksum is sent only where S3 requires one.
      ...(endpoint ? { requestChecksumCalculation: "WHEN_REQUIRED", responseChecksumValidation: "WHEN_REQUIRED" } : {}),
      // An unreachable store fails a put or a read instead of holding it forever; a slow download is not cut short.
      requestHandler: { connectionTimeout: 10_000, socketTimeout: 60_000 },
    });
  }

  /** The object name of the medium `key`. */
  objectKey(key: string): string {
    checkMediaKey(key);
    return `${this.prefix}${key}`;
  }

  async put(
    key: string,
    source: { path: string } | { bytes: Buffer },
    meta: { contentType: string; size: number },
  ): Promise<void> {
    const Key = this.objectKey(key);
    // A stream body is sent with its length up front; a file whose size is not the one recorded would be cut short
    // or leave S3 waiting, so the two are compared first.
    const size = "path" in source ? (await stat(source.path)).size : source.bytes.length;
    if (size !== meta.size) {
      throw new Error(`the medium "${key}" is ${size} bytes, not the ${meta.size} it was said to be`);
    }
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key,
        Body: "path" in source ? createReadStream(source.path) : source.bytes,
        ContentLength: size,
        ContentType: meta.contentType,
      }),
    );
  }

  async open(key: string, range?: ByteRange): Promise<Readable> {
    if (range) checkByteRange(range);
    const Key = this.objectKey(key);
    try {
      const answer = await this.client.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key,
          Range: range ? `bytes=${range.start}-${range.end}` : undefined,
        }),
      );
      // On Node the body is an http.IncomingMessage (a Readable) with the SDK's helpers mixed in.
      if (!(answer.Body instanceof Readable)) throw new Error(`the store answered "${Key}" without a body`);
      return range ? askedPart(answer.Body, range, answer.ContentRange, answer.ContentLength, Key) : answer.Body;
    } catch (error) {
      if (isMissing(error)) throw new MediaMissingError(key);
      throw error;
    }
  }

  async remove(keys: string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += DELETE_BATCH) {
      const batch = keys.slice(i, i + DELETE_BATCH).map((key) => ({ Key: this.objectKey(key) }));
      // Quiet: only failures are listed. Deleting an absent object succeeds in S3, as absent keys must here.
      const answer = await this.client.send(
        new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: batch, Quiet: true } }),
      );
      const failed = answer.Errors ?? [];
      if (failed.length > 0) {
        const first = failed[0];
        throw new Error(
          `the store kept ${failed.length} of ${batch.length} media it was asked to delete ` +
            `(${first?.Key}: ${first?.Code} ${first?.Message})`,
        );
      }
    }
  }

  /** Closes the client's connections (tests, shutdown). */
  close(): void {
    this.client.destroy();
  }
}

/**
 * Exactly the bytes asked for. A store may answer a range with more than was asked: the whole object (a server or
 * proxy that ignores Range, as HTTP allows) or, in s3rver's case, everything from the start when the range ends at
 * byte 0. Sent on as they came, those bytes would go out under a 206 that promised others.
 */
function askedPart(
  body: Readable,
  range: ByteRange,
  contentRange: string | undefined,
  contentLength: number | undefined,
  key: string,
): Readable {
  const given = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(contentRange ?? "");
  const from = given ? Number(given[1]) : 0;
  const to = given ? Number(given[2]) : (contentLength ?? 0) - 1;
  if (from === range.start && to <= range.end) return body;
  if (from > range.start || to < range.start) {
    body.destroy();
    throw new Error(`the store answered bytes ${from}-${to} of "${key}" when asked for ${range.start}-${range.end}`);
  }
  return Readable.from(slice(body, range.start - from, Math.min(range.end, to) - range.start + 1), {
    objectMode: false,
  });
}

async function* slice(source: Readable, skip: number, take: number): AsyncGenerator<Buffer> {
  let toSkip = skip;
  let toTake = take;
  // Leaving the loop early destroys the source: the rest of the object is not downloaded.
  for await (const chunk of source) {
    let bytes = chunk as Buffer;
    if (toSkip >= bytes.length) {
      toSkip -= bytes.length;
      continue;
    }
    bytes = bytes.subarray(toSkip, toSkip + toTake);
    toSkip = 0;
    toTake -= bytes.length;
    yield bytes;
    if (toTake === 0) return;
  }
}

function isMissing(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { name, $metadata } = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  // A missing bucket is the operator's to fix, not a medium gone: it stays an error of its own.
  if (name === "NoSuchBucket") return false;
  return name === "NoSuchKey" || name === "NotFound" || $metadata?.httpStatusCode === 404;
}
