import type { IncomingMessage, ServerResponse } from "node:http";

// Turns a Node request into a Web Request for the app/v3 route handler exports, and a Web Response back, so the
// same handlers serve both server.ts's fast path and Next's pipeline.
export async function toWebRequest(req: IncomingMessage, origin: string, maxBytes: number): Promise<Request> {
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.startsWith(":")) continue;
    headers.append(name, raw[i + 1]!);
  }
  const method = req.method ?? "GET";
  let body: Buffer | undefined;
  if (method !== "GET" && method !== "HEAD") {
    const chunks: Buffer[] = [];
    let stored = 0;
    for await (const chunk of req) {
      // Past the limit keep reading (the handler answers with the error) but stop storing.
      if (stored <= maxBytes) {
        chunks.push(chunk as Buffer);
        stored += (chunk as Buffer).length;
      }
    }
    body = Buffer.concat(chunks);
  }
  return new Request(origin + (req.url ?? "/"), { method, headers, body: body as Uint8Array<ArrayBuffer> | undefined });
}

export async function sendWebResponse(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const setCookies = response.headers.getSetCookie();
  if (setCookies.length > 0) headers["set-cookie"] = setCookies;
  const body = Buffer.from(await response.arrayBuffer());
  headers["content-length"] = String(body.length);
  res.writeHead(response.status, headers);
  res.end(body);
}
