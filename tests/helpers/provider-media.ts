import type { IncomingHttpHeaders, ServerResponse } from "node:http";

// The media a provider stand-in holds for its inbound messages, as providers keep them: bytes at a path of their own
// host, answered whole with their type, until the provider forgets them (its media expire, or it is down), after
// which the path answers 404. Every request for a medium is kept, with its headers, so a test sees who was given
// credentials.

export interface ProviderMediaRequest {
  path: string;
  headers: IncomingHttpHeaders;
}

export interface ProviderMedia {
  requests: ProviderMediaRequest[];
  /** Offers `bytes` at `path` from now on. */
  offer(path: string, bytes: Buffer, contentType: string): void;
  has(path: string): boolean;
  /** Forgets every medium: their paths answer 404 from now on. */
  forget(): void;
  /** Answers a GET for `path`: the medium, or `missing` (a 404 in the provider's words) when it is not offered. */
  answer(
    path: string,
    headers: IncomingHttpHeaders,
    res: ServerResponse,
    missing?: { contentType: string; body: string },
  ): void;
}

export function providerMedia(): ProviderMedia {
  const shelf = new Map<string, { bytes: Buffer; contentType: string }>();
  return {
    requests: [],
    offer(path, bytes, contentType) {
      shelf.set(path, { bytes, contentType });
    },
    has: (path) => shelf.has(path),
    forget() {
      shelf.clear();
    },
    answer(path, headers, res, missing = { contentType: "text/plain", body: "not found" }) {
      this.requests.push({ path, headers });
      const medium = shelf.get(path);
      if (!medium) {
        res.writeHead(404, { "content-type": missing.contentType }).end(missing.body);
        return;
      }
      res.writeHead(200, { "content-type": medium.contentType, "content-length": String(medium.bytes.length) });
      res.end(medium.bytes);
    },
  };
}
