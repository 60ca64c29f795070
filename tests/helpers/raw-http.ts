import { request, type IncomingHttpHeaders } from "node:http";
import { connect } from "node:net";
import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib";
import type { RunningServer } from "./server";

// Requests as an attacker sends them: node:http with the method, path bytes and headers exactly as given (fetch
// normalizes paths, refuses methods such as TRACE and CONNECT and drops some headers), and raw bytes over a socket
// for what is not HTTP at all.

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: Record<string, any> | undefined; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export interface RawRequest {
  method: string;
  /** The request target as sent: may hold bad escapes, dot segments and bytes 0x80-0xFF (sent as single bytes). */
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

function parse(text: string): RawResponse["json"] {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === "object" && !Array.isArray(value) ? (value as RawResponse["json"]) : undefined;
  } catch {
    return undefined;
  }
}

/** The body as sent before compression (a client that asks for gzip gets it where the server compresses). */
function decode(body: Buffer, encoding: string | undefined): Buffer {
  if (body.length === 0) return body;
  if (encoding === "gzip") return gunzipSync(body);
  if (encoding === "br") return brotliDecompressSync(body);
  if (encoding === "deflate") return inflateSync(body);
  return body;
}

/** The body of a chunked message. */
function dechunk(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  while (at < body.length) {
    const eol = body.indexOf("\r\n", at);
    if (eol < 0) break;
    const size = parseInt(body.subarray(at, eol).toString("latin1"), 16);
    if (!Number.isFinite(size) || size === 0) break;
    parts.push(body.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

export function rawRequest(server: RunningServer, options: RawRequest): Promise<RawResponse> {
  const headers = { ...options.headers };
  // node:http frames a DELETE or GET body by nothing at all unless told its length.
  const framed = Object.keys(headers).some((name) => /^(content-length|transfer-encoding)$/i.test(name));
  if (options.body !== undefined && !framed) headers["content-length"] = String(Buffer.byteLength(options.body));
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port: server.port,
        method: options.method,
        path: options.path,
        headers,
        // A connection of its own each: a request the server refuses as bad HTTP ends its connection with an
        // answer, and on a reused socket that answer could be read as the next request's.
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          const text = decode(Buffer.concat(chunks), res.headers["content-encoding"]).toString("utf8");
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: parse(text) });
        });
        res.on("error", reject);
      },
    );
    req.setTimeout(20_000, () => req.destroy(new Error(`no answer to ${options.method} ${options.path}`)));
    req.on("error", reject);
    req.end(options.body);
  });
}

/**
 * Raw bytes to the server; its first answer (status line, headers, body), once complete by its Content-Length or
 * chunked framing, or once the server closes. A server that neither answers nor closes within 5 s fails.
 */
export function rawExchange(server: RunningServer, bytes: string | Buffer): Promise<RawResponse & { raw: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, "127.0.0.1", () => socket.write(bytes));
    let received: Buffer = Buffer.alloc(0);
    let done = false;
    const finish = (complete: boolean) => {
      if (done) return;
      const head = received.indexOf("\r\n\r\n");
      if (!complete && head < 0) return;
      const headText = received.subarray(0, Math.max(head, 0)).toString("latin1");
      const [statusLine = "", ...headerLines] = headText.split("\r\n");
      const headers: IncomingHttpHeaders = {};
      for (const line of headerLines) {
        const at = line.indexOf(":");
        if (at > 0) headers[line.slice(0, at).trim().toLowerCase()] = line.slice(at + 1).trim();
      }
      let body: Buffer = head < 0 ? Buffer.alloc(0) : received.subarray(head + 4);
      if (headers["transfer-encoding"] === "chunked") {
        if (!complete && body.indexOf("0\r\n\r\n") < 0) return;
        body = dechunk(body);
      } else if (headers["content-length"] !== undefined) {
        const length = Number(headers["content-length"]);
        if (!complete && body.length < length) return;
        body = body.subarray(0, length);
      } else if (!complete) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const text = body.toString("utf8");
      const raw = received.toString("latin1");
      resolve({ raw, status: Number(statusLine.split(" ")[1] ?? 0), headers, text, json: parse(text) });
    };
    const timer = setTimeout(() => {
      socket.destroy();
      if (!done) reject(new Error(`no answer within 5 s to ${JSON.stringify(bytes.toString().slice(0, 200))}`));
      done = true;
    }, 5_000);
    socket.on("data", (chunk) => {
      received = Buffer.concat([received, chunk]);
      finish(false);
    });
    socket.on("error", (error) => {
      if (!done && received.length === 0) reject(error);
      else finish(true);
    });
    socket.on("close", () => finish(true));
  });
}
