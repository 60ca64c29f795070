import { createWriteStream } from "node:fs";
import { open } from "node:fs/promises";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import busboy from "busboy";
import { ApiError, isApiError } from "../api/api-error";
import { env } from "../env";
import { describeBytes, SNIFF_BYTES, sniffMediaType } from "./media-types";
import { mediaTempPath, removeTemp } from "./media-temp";
import { storeMedium, type StoredMedium } from "./media-records";

// POST /v3/media: one file in the multipart field `file`, streamed to disk (refused as soon as it passes
// MEDIA_MAX_BYTES), its type read from its bytes (the name and the part's Content-Type are not believed), then kept
// in the media store.

const fileProblem = (detail: string) => new ApiError("InvalidRequest", { detail: `file: ${detail}`, field: "file" });

interface ReceivedFile {
  path: string;
  size: number;
  fileName: string;
}

const unreadable = (why: string) =>
  new ApiError("InvalidRequest", { detail: `the multipart body cannot be read: ${why}` });

/**
 * Streams the `file` part to a temporary file; other parts are ignored. Whatever goes wrong (a body cut off by the
 * client, a malformed part after the file, a file over the limit), the temporary file is removed before the answer.
 */
function receiveFilePart(body: ReadableStream<Uint8Array>, contentType: string, maxBytes: number) {
  return new Promise<ReceivedFile | null>((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      // Browsers send a file's name as raw UTF-8 in filename="…".
      parser = busboy({
        headers: { "content-type": contentType },
        defParamCharset: "utf8",
        limits: { files: 1, fileSize: maxBytes, parts: 20 },
      });
    } catch (error) {
      reject(unreadable((error as Error).message));
      return;
    }
    let part: (NodeJS.ReadableStream & { destroy(error?: Error): void }) | null = null;
    let path: string | null = null;
    let written: Promise<ReceivedFile | null> = Promise.resolve(null);
    let failed = false;
    const fail = (error: unknown) => {
      if (failed) return;
      failed = true;
      // The file part is ended by force (a cut-off body never ends it), its write waited for, and the file removed.
      part?.destroy(error instanceof Error ? error : new Error(String(error)));
      void written
        .catch(() => undefined)
        .then(() => removeTemp(path))
        .finally(() => reject(error));
    };
    parser.on("file", (name, stream, info) => {
      if (name !== "file" || part) {
        stream.resume();
        return;
      }
      part = stream;
      const file = mediaTempPath();
      path = file;
      let size = 0;
      let tooLarge = false;
      stream.on("data", (chunk: Buffer) => (size += chunk.length));
      stream.on("limit", () => (tooLarge = true));
      written = pipeline(stream, createWriteStream(file)).then(() => {
        if (tooLarge) throw fileProblem(`is over the ${describeBytes(maxBytes)} a medium may weigh`);
        return { path: file, size, fileName: info.filename ?? "" };
      });
    });
    parser.on("error", (error: Error) => fail(unreadable(error.message)));
    parser.on("close", () => {
      written.then(
        (file) => {
          if (!failed) resolve(file);
        },
        (error: unknown) => fail(error),
      );
    });
    pipeline(Readable.fromWeb(body as never), parser).catch((error: unknown) =>
      fail(isApiError(error) ? error : unreadable(`the upload ended before its end (${(error as Error).message})`)),
    );
  });
}

/** The first bytes of a file, for its type. */
async function headOf(path: string): Promise<Buffer> {
  const handle = await open(path, "r");
  try {
    const buffer = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, SNIFF_BYTES, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

export async function receiveUpload(input: {
  accountId: string;
  body: ReadableStream<Uint8Array> | null;
  contentType: string | null;
  contentLength?: string | null;
}): Promise<StoredMedium> {
  const type = (input.contentType ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "multipart/form-data" || !input.body) {
    throw new ApiError("InvalidRequest", {
      detail: "send the file as multipart/form-data in the field `file` (curl -F file=@photo.jpg)",
      field: "file",
    });
  }
  const maxBytes = env().MEDIA_MAX_BYTES;
  // A body that says at the start it is too large is refused before it is read (the form's own lines aside).
  const declared = Number(input.contentLength ?? NaN);
  if (declared > maxBytes + 64 * 1024) throw fileProblem(`is over the ${describeBytes(maxBytes)} a medium may weigh`);
  const file = await receiveFilePart(input.body, input.contentType!, maxBytes);
  if (!file) throw fileProblem("is required: a multipart field named `file` holding the medium");
  try {
    if (file.size === 0) throw fileProblem("is empty");
    const sniffed = await sniffMediaType(await headOf(file.path));
    if (!sniffed.ok) throw fileProblem(sniffed.reason);
    return await storeMedium({
      accountId: input.accountId,
      origin: "upload",
      path: file.path,
      size: file.size,
      contentType: sniffed.type.contentType,
      fileName: file.fileName,
    });
  } finally {
    await removeTemp(file.path);
  }
}
