import { STATUS_CODES, type OutgoingHttpHeaders, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { ApiError } from "../api/api-error";
import { errorEnvelope } from "../api/envelope";
import type { ErrorCode } from "../api/error-codes";
import type { Logger } from "../log";
import { dataSecurityHeaders } from "./security-headers";

// The envelope written by the server itself, where no route handler answers: requests refused before routing,
// failures nothing else caught, malformed HTTP, and the error answers Next.js makes on its own (405, 404 pages,
// "Internal Server Error" text) on the API's paths. The rule: every answer under /v3 and /api is the envelope.

function envelopeBody(error: ApiError, method: string): { status: number; body: Buffer } {
  const envelope = errorEnvelope(error, method);
  return { status: envelope.statusCode, body: Buffer.from(JSON.stringify(envelope)) };
}

function envelopeHeaders(body: Buffer, requestId: string): OutgoingHttpHeaders {
  return {
    "content-type": "application/json; charset=utf-8",
    "content-length": String(body.length),
    "x-request-id": requestId,
    "cache-control": "no-store",
    // Written after every other header is removed (or on a socket no other code writes to): the envelope carries
    // the security headers of every answer itself.
    ...dataSecurityHeaders(),
  };
}

/** Answers `res` with the error's envelope (or, when the head is already out, cuts the connection). */
export function writeEnvelope(res: ServerResponse, error: ApiError, method: string, requestId: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const { status, body } = envelopeBody(error, method);
  for (const name of res.getHeaderNames()) res.removeHeader(name);
  res.writeHead(status, STATUS_CODES[status], envelopeHeaders(body, requestId));
  res.end(body);
}

/** A whole HTTP/1.1 answer as bytes, for sockets the HTTP server has given up on (malformed requests, CONNECT). */
function rawEnvelope(error: ApiError, method: string, requestId: string): Buffer {
  const { status, body } = envelopeBody(error, method);
  const headers = { ...envelopeHeaders(body, requestId), connection: "close" };
  const head = [`HTTP/1.1 ${status} ${STATUS_CODES[status]}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  // The answer to HEAD has the head only (its Content-Length says what GET would carry).
  return Buffer.concat([Buffer.from(head.join("\r\n") + "\r\n\r\n"), method === "HEAD" ? Buffer.alloc(0) : body]);
}

/** Answers on a bare socket and closes it. */
export function endSocketWithEnvelope(socket: Duplex, error: ApiError, method: string, requestId: string): void {
  // node:http has let go of this socket: a client that resets it must not become an uncaught exception.
  socket.on("error", () => socket.destroy());
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(rawEnvelope(error, method, requestId));
}

// A request line whose method is an HTTP token the parser does not know: "BREW /pot HTTP/1.1".
const REQUEST_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]{1,32}) \S+ HTTP\/\d\.\d\r?$/;

/** The envelope for a request the HTTP parser refused (node:http's `clientError`), and the method to name. */
export function clientErrorAnswer(error: NodeJS.ErrnoException & { rawPacket?: Buffer }): {
  error: ApiError;
  method: string;
} {
  const packet = error.rawPacket?.toString("latin1") ?? "";
  const requestLine = packet.split("\n", 1)[0]!;
  const method = REQUEST_LINE.exec(requestLine)?.[1];
  if (error.code === "HPE_INVALID_METHOD" && method) {
    const detail = "the methods served are GET, HEAD, POST, PUT, PATCH and DELETE";
    return { error: new ApiError("ResourceNotAllowed", { detail }), method };
  }
  const detail =
    error.code === "HPE_HEADER_OVERFLOW"
      ? "the request head is too large"
      : error.code === "ERR_HTTP_REQUEST_TIMEOUT" || error.code === "ERR_HTTP_HEADERS_TIMEOUT"
        ? "the request did not arrive in time"
        : "the request is not valid HTTP/1.1";
  // A HEAD request gets the head alone, whatever else was wrong with it.
  return {
    error: new ApiError("InvalidRequest", { detail }),
    // The refused packet may hold more than the request it refuses (bytes left before it on a reused connection):
    // any HEAD request line in it means the client may be waiting for a head alone.
    method: /(?:^|\n)HEAD \S/.test(packet) ? "HEAD" : "GET",
  };
}

/** The code for an error answer Next.js made itself, by its HTTP status. */
function codeForStatus(status: number): ErrorCode {
  if (status === 404) return "UnknownResource";
  if (status === 405) return "ResourceNotAllowed";
  if (status >= 500) return "SystemFailure";
  return "InvalidRequest";
}

/**
 * Makes every error answer Next.js writes to `res` that is not JSON (its 405 for a method a route does not export,
 * its 404 page, its "Internal Server Error" text, next-auth's error text) the envelope instead. Route handlers'
 * own answers are JSON and pass untouched, as do successes and redirects.
 */
export function envelopeNextErrors(
  res: ServerResponse,
  context: { method: string; path: string; requestId: string; log: Logger },
): void {
  type Variadic = (...args: unknown[]) => unknown;
  const original = {
    writeHead: res.writeHead as Variadic,
    write: res.write as Variadic,
    end: res.end as Variadic,
  };
  let replacement: Buffer | null = null;

  const replaceIfNeeded = (status: number): void => {
    if (replacement || res.headersSent || status < 400) return;
    if (/^application\/([a-z0-9.+-]*\+)?json\b/i.test(String(res.getHeader("content-type") ?? ""))) return;
    const requestId = String(res.getHeader("x-request-id") ?? context.requestId);
    if (status >= 500) {
      context.log.error({ reqId: requestId, status, path: context.path }, "server error without an envelope");
    }
    const { status: newStatus, body } = envelopeBody(new ApiError(codeForStatus(status)), context.method);
    for (const name of res.getHeaderNames()) res.removeHeader(name);
    original.writeHead.call(res, newStatus, STATUS_CODES[newStatus], envelopeHeaders(body, requestId));
    replacement = body;
  };

  res.writeHead = function writeHead(this: ServerResponse, statusCode: number, ...rest: unknown[]) {
    if (!replacement && !res.headersSent) {
      // writeHead(status, [reason], [headers]): headers given as an object count as if set before.
      const headers = rest.find((arg) => typeof arg === "object" && arg !== null);
      if (headers && !Array.isArray(headers)) {
        for (const [name, value] of Object.entries(headers as OutgoingHttpHeaders)) {
          if (value !== undefined) res.setHeader(name, value);
        }
        rest = rest.filter((arg) => arg !== headers);
      }
      replaceIfNeeded(statusCode);
      if (replacement) return res;
    }
    return original.writeHead.call(res, statusCode, ...rest);
  } as ServerResponse["writeHead"];

  res.write = function write(this: ServerResponse, ...args: unknown[]) {
    replaceIfNeeded(res.statusCode);
    if (replacement) {
      const callback = args.find((arg) => typeof arg === "function") as (() => void) | undefined;
      if (callback) process.nextTick(callback);
      return true;
    }
    return original.write.apply(res, args);
  } as ServerResponse["write"];

  res.end = function end(this: ServerResponse, ...args: unknown[]) {
    replaceIfNeeded(res.statusCode);
    if (replacement) {
      const callback = args.find((arg) => typeof arg === "function") as (() => void) | undefined;
      if (res.writableEnded) {
        if (callback) process.nextTick(callback);
        return res;
      }
      return original.end.call(res, replacement, callback);
    }
    return original.end.apply(res, args);
  } as ServerResponse["end"];
}
