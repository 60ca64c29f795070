import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";
import { PlainAnswer, responseText, writesPlainAnswers } from "../api/envelope";

// Turns a Node request into a Web Request for the app/v3 route handler exports, and a Web Response back, so the
// same handlers serve both server.ts's fast path and Next's pipeline.
/** The request headers as the handlers read them: get/has over Node's parsed (lower-cased) headers. */
class NodeHeaders {
  constructor(private readonly source: IncomingHttpHeaders) {}
  get(name: string): string | null {
    const value = this.source[name.toLowerCase()];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(", ") : value;
  }
  has(name: string): boolean {
    return this.source[name.toLowerCase()] !== undefined;
  }
}

// Events rather than the stream's async iterator: the iterator's promises and their queue cost a send about 10 µs.
function readBody(req: IncomingMessage, maxBytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let stored = 0;
    req.on("data", (chunk: Buffer) => {
      // Past the limit keep reading (the handler answers with the error) but stop storing.
      if (stored <= maxBytes) {
        chunks.push(chunk);
        stored += chunk.length;
      }
    });
    req.on("end", () =>
      resolve(chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks).toString("utf8")),
    );
    req.on("error", reject);
    // A client gone before the end of its body: no answer is written to it, but the promise settles.
    req.on("close", () => {
      if (!req.complete) reject(new Error("the request was closed before its body ended"));
    });
  });
}

/**
 * The request for a route handler on the fast path. The v3 handlers read `method`, `url`, `headers.get/has` and
 * `text()` of their Request and nothing else; this object offers exactly those without undici's Request, whose
 * streams and abort signal were a fifth of a send's cost. The parity test holds both paths to the same answers.
 */
export async function toHandlerRequest(req: IncomingMessage, origin: string, maxBytes: number): Promise<Request> {
  const method = req.method ?? "GET";
  const body = method === "GET" || method === "HEAD" ? "" : await readBody(req, maxBytes);
  const request = {
    method,
    url: origin + (req.url ?? "/"),
    headers: new NodeHeaders(req.headers),
    text: async () => body,
    json: async () => JSON.parse(body) as unknown,
    [writesPlainAnswers]: true,
  };
  return request as unknown as Request;
}

/**
 * The request for a route handler that reads its body as a stream (POST /v3/media: uploads of many megabytes are
 * written to disk as they arrive, never held whole): `body` is the request itself, not read beforehand.
 */
export function toStreamingRequest(req: IncomingMessage, origin: string): Request {
  const request = {
    method: req.method ?? "GET",
    url: origin + (req.url ?? "/"),
    headers: new NodeHeaders(req.headers),
    body: Readable.toWeb(req),
  };
  return request as unknown as Request;
}

export async function sendWebResponse(res: ServerResponse, response: Response): Promise<void> {
  if (response instanceof PlainAnswer) {
    const headers: Record<string, string> = { ...response.headers.values };
    headers["content-length"] = String(Buffer.byteLength(response.text));
    res.writeHead(response.status, headers);
    res.end(response.text);
    return;
  }
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const setCookies = response.headers.getSetCookie();
  if (setCookies.length > 0) headers["set-cookie"] = setCookies;
  const text = responseText.get(response);
  const body = text !== undefined ? Buffer.from(text) : Buffer.from(await response.arrayBuffer());
  headers["content-length"] = String(body.length);
  res.writeHead(response.status, headers);
  res.end(body);
}
