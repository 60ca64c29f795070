import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { randomUUID } from "node:crypto";
import { providerMedia, type ProviderMediaRequest } from "./provider-media";

// A Vonage stand-in on 127.0.0.1 held to the Messages API v1: POST /v1/messages with the API key and secret (HTTP
// Basic) and a JSON body, answered 202 with a message_uuid. An inbound MMS's picture is a public URL under
// /v3/media/.

export interface VonageRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export interface FakeVonage {
  /** The API's origin, as a connection's apiUrl. */
  url: string;
  requests: VonageRequest[];
  waitFor(match: (r: VonageRequest) => boolean, timeoutMs?: number): Promise<VonageRequest>;
  /** Holds `bytes` as an inbound MMS's picture; answers its public URL. */
  offerMedia(bytes: Buffer, contentType: string): string;
  /** A media URL that answers 404. */
  missingMediaUrl(): string;
  /** Forgets every medium: their URLs answer 404 from now on. */
  forgetMedia(): void;
  mediaRequests: ProviderMediaRequest[];
  close(): Promise<void>;
}

export async function startFakeVonage(options: { apiKey: string; apiSecret: string }): Promise<FakeVonage> {
  const media = providerMedia();
  const expected = `Basic ${Buffer.from(`${options.apiKey}:${options.apiSecret}`).toString("base64")}`;
  const fake: FakeVonage = {
    url: "",
    requests: [],
    async waitFor(match, timeoutMs = 15_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const found = fake.requests.find(match);
        if (found) return found;
        if (Date.now() > until) throw new Error(`no matching Vonage request; got ${fake.requests.length}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    offerMedia(bytes, contentType) {
      const path = `/v3/media/${randomUUID()}`;
      media.offer(path, bytes, contentType);
      return `${fake.url}${path}`;
    },
    missingMediaUrl: () => `${fake.url}/v3/media/${randomUUID()}`,
    forgetMedia: () => media.forget(),
    mediaRequests: media.requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "").split("?")[0]!;
    if (req.method === "GET" && path.startsWith("/v3/media/")) return media.answer(path, req.headers, res);
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (body += chunk));
    req.on("end", () => {
      let parsed = {};
      try {
        parsed = JSON.parse(body);
      } catch {
        // kept as text
      }
      fake.requests.push({ method: req.method ?? "", path, headers: req.headers, body, json: parsed });
      const accepted = path === "/v1/messages" && req.method === "POST" && req.headers.authorization === expected;
      res.writeHead(accepted ? 202 : 401, { "content-type": "application/json" });
      res.end(JSON.stringify(accepted ? { message_uuid: randomUUID() } : { title: "Unauthorized" }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}
