import { randomUUID } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import http from "node:http";
import https from "node:https";
import { isIP } from "node:net";
import path from "node:path";
import { guardedLookup, refusedAddressReason } from "../webhooks/guard-webhook-url";
import { describeBytes, SNIFF_BYTES } from "./media-types";

// One fetch of a medium someone else names by URL: an API caller's `mediaUrls`, or a provider's inbound media.
// The URL is chosen by a customer (or by whoever sent the MMS), so it gets the webhook guard: no loopback,
// private, link-local or other non-public address unless the operator allows them, checked on the URL and on
// every redirect target, and the connection goes to the address that was checked. Redirects are followed by
// hand so each hop is checked and asked for its own headers (a provider's credentials go to its own host only).
// The body goes straight to a file, never whole into memory, and stops at the size limit whatever the server
// declared.

export type FetchMediaResult =
  | {
      ok: true;
      path: string;
      size: number;
      head: Buffer;
      declaredType: string | null;
      fileName: string | null;
      finalUrl: string;
    }
  | { ok: false; reason: string; temporary: boolean };

export interface FetchMediaOptions {
  url: string;
  allowPrivate: boolean;
  maxBytes: number;
  /** Covers the whole fetch, every hop and the body included. */
  timeoutMs: number;
  /** Extra request headers for one hop's URL (credentials for the provider's own host, decided by the caller). */
  headers?: (url: URL) => Record<string, string> | undefined;
  maxRedirects?: number;
  tempDir: string;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

class FetchRefusal extends Error {
  constructor(
    readonly reason: string,
    readonly temporary: boolean,
  ) {
    super(reason);
  }
}

/** "30 s", "1.5 s": a timeout in the words of a reason. */
function describeSeconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

/** Why a hop's URL may not be fetched (scheme, credentials, literal address), or null. */
function hopProblem(url: URL, allowPrivate: boolean): string | null {
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return `refused: ${url.protocol.replace(/:$/, "")} URLs are not fetched (http and https only)`;
  }
  // Credentials in a URL would be sent to every host a redirect names; the caller's `headers` decides instead.
  if (url.username || url.password) return "refused: a URL with a user name or password in it";
  if (allowPrivate) return null;
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  // node:http does not call `lookup` for a literal address: it is judged here.
  if (isIP(host)) {
    const reason = refusedAddressReason(host);
    if (reason) return `refused: ${reason}`;
  }
  return null;
}

/** The file name a Content-Disposition header gives (filename* preferred), or null. */
export function dispositionFileName(header: string | undefined): string | null {
  if (!header) return null;
  const extended = /filename\*\s*=\s*([^']*)'[^']*'([^;]+)/i.exec(header);
  if (extended) {
    try {
      return cleanFileName(decodeURIComponent(extended[2]!.trim()));
    } catch {
      // A broken percent-encoding: fall back to the plain parameter.
    }
  }
  const plain = /filename\s*=\s*("((?:[^"\\]|\\.)*)"|[^;]+)/i.exec(header);
  if (!plain) return null;
  return cleanFileName(plain[2] !== undefined ? plain[2].replace(/\\(.)/g, "$1") : plain[1]!.trim());
}

/** A file name with no directory part and no control characters, or null when nothing is left. */
function cleanFileName(name: string): string | null {
  const printable = [...name].filter((c) => c.charCodeAt(0) > 0x1f && c.charCodeAt(0) !== 0x7f).join("");
  const base = printable.split(/[\\/]/).pop()!.trim();
  return base && base !== "." && base !== ".." ? Array.from(base).slice(0, 200).join("") : null;
}

function urlFileName(url: URL): string | null {
  const last = url.pathname.split("/").pop() ?? "";
  try {
    return cleanFileName(decodeURIComponent(last));
  } catch {
    return cleanFileName(last);
  }
}

function declaredTypeOf(header: string | undefined): string | null {
  const type = header?.split(";")[0]!.trim().toLowerCase();
  return type ? type : null;
}

/** Fetches `url` into a new file under `tempDir`; on any failure nothing is left behind. */
export async function fetchMedia(options: FetchMediaOptions): Promise<FetchMediaResult> {
  const maxRedirects = options.maxRedirects ?? 3;
  const overLimit = (what: string) => `over the ${describeBytes(options.maxBytes)} a medium may weigh (${what})`;
  await mkdir(options.tempDir, { recursive: true });
  const filePath = path.join(options.tempDir, `fetch-${randomUUID()}`);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs);
  try {
    let url: URL;
    try {
      url = new URL(options.url);
    } catch {
      throw new FetchRefusal("not a URL", false);
    }
    for (let hop = 0; ; hop++) {
      const problem = hopProblem(url, options.allowPrivate);
      if (problem) throw new FetchRefusal(problem, false);
      const response = await request(url, options, controller.signal);
      const status = response.statusCode ?? 0;
      if (REDIRECTS.has(status)) {
        response.resume();
        const location = response.headers.location;
        if (!location) throw new FetchRefusal(`answered ${status} without a Location to follow`, false);
        if (hop >= maxRedirects) throw new FetchRefusal(`more than ${maxRedirects} redirects`, false);
        try {
          url = new URL(location, url);
        } catch {
          throw new FetchRefusal(`answered ${status} with a Location that is not a URL`, false);
        }
        continue;
      }
      if (status < 200 || status >= 300) {
        response.resume();
        // A 4xx will answer the same next time, except "too many requests" and "request timeout".
        const temporary = status >= 500 || status === 408 || status === 429;
        throw new FetchRefusal(`answered ${status}`, temporary);
      }
      const declared = Number(response.headers["content-length"]);
      if (Number.isFinite(declared) && declared > options.maxBytes) {
        response.destroy();
        throw new FetchRefusal(overLimit(`the answer declares ${describeBytes(declared)}`), false);
      }
      const { size, head } = await saveBody(response, filePath, options.maxBytes, overLimit, controller.signal);
      if (size === 0) throw new FetchRefusal("answered with no bytes", false);
      return {
        ok: true,
        path: filePath,
        size,
        head,
        declaredType: declaredTypeOf(response.headers["content-type"]),
        fileName: dispositionFileName(response.headers["content-disposition"]) ?? urlFileName(url),
        finalUrl: url.toString(),
      };
    }
  } catch (error) {
    // Judged before anything else is awaited: a failure once the clock has run out is the timeout's doing.
    const timedOut = controller.signal.aborted;
    await rm(filePath, { force: true });
    if (timedOut) {
      return { ok: false, reason: `timed out after ${describeSeconds(options.timeoutMs)}`, temporary: true };
    }
    if (error instanceof FetchRefusal) return { ok: false, reason: error.reason, temporary: error.temporary };
    const failure = error as NodeJS.ErrnoException;
    if (failure.code === "EWEBHOOKREFUSED")
      return { ok: false, reason: `refused: ${failure.message}`, temporary: false };
    return { ok: false, reason: networkReason(failure), temporary: true };
  } finally {
    clearTimeout(timer);
  }
}

function networkReason(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `the host does not resolve (${error.message})`;
    case "ECONNREFUSED":
      return "the connection was refused";
    case "ECONNRESET":
      return "the connection was reset";
    default:
      return `the fetch failed: ${error.message}`;
  }
}

/** One GET; resolves with the answer's head (the body not read yet). */
function request(url: URL, options: FetchMediaOptions, signal: AbortSignal): Promise<http.IncomingMessage> {
  const transport = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const req = transport.request(
      url,
      {
        method: "GET",
        // A connection of its own: the guarded lookup runs for every hop, none reuses a socket checked before.
        agent: false,
        signal,
        lookup: guardedLookup(options.allowPrivate) as unknown as http.RequestOptions["lookup"],
        headers: {
          ...options.headers?.(url),
          accept: "*/*",
          // The bytes as stored: a compressed answer would be sniffed as an archive.
          "accept-encoding": "identity",
          "user-agent": "Parley-Media/1",
        },
      },
      resolve,
    );
    req.on("error", reject);
    req.end();
  });
}

/** Streams the body to `filePath`, keeping its first SNIFF_BYTES; refuses as soon as it passes `maxBytes`. */
function saveBody(
  response: http.IncomingMessage,
  filePath: string,
  maxBytes: number,
  overLimit: (what: string) => string,
  signal: AbortSignal,
): Promise<{ size: number; head: Buffer }> {
  return new Promise((resolve, reject) => {
    const file = createWriteStream(filePath, { flags: "wx" });
    const headParts: Buffer[] = [];
    let headLength = 0;
    let size = 0;
    let failed = false;
    const fail = (error: Error) => {
      if (failed) return;
      failed = true;
      signal.removeEventListener("abort", onAbort);
      response.destroy();
      // The file is closed before the caller removes it.
      file.destroy();
      file.once("close", () => reject(error));
    };
    const onAbort = () => fail(new Error("aborted"));
    signal.addEventListener("abort", onAbort, { once: true });
    file.on("error", fail);
    response.on("error", fail);
    response.on("aborted", () => fail(new FetchRefusal("the answer was cut off before its end", true)));
    response.on("data", (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > maxBytes) {
        fail(new FetchRefusal(overLimit(`more than ${describeBytes(maxBytes)} came`), false));
        return;
      }
      if (headLength < SNIFF_BYTES) {
        const part = chunk.subarray(0, SNIFF_BYTES - headLength);
        headParts.push(Buffer.from(part));
        headLength += part.length;
      }
      if (!file.write(chunk)) {
        response.pause();
        file.once("drain", () => response.resume());
      }
    });
    response.on("end", () => {
      if (failed) return;
      // A body shorter than its Content-Length ends with "aborted", not here; this is the whole of it.
      signal.removeEventListener("abort", onAbort);
      file.end(() => resolve({ size, head: Buffer.concat(headParts) }));
    });
  });
}
