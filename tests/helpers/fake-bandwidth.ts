import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { randomUUID } from "node:crypto";
import { providerMedia, type ProviderMediaRequest } from "./provider-media";

// A Bandwidth stand-in on 127.0.0.1 held to Bandwidth's published Messaging API v2: an OAuth2 token for the API
// credentials (client_credentials, HTTP Basic), then POST /api/v2/users/{accountId}/messages with that Bearer token
// and a JSON body. An inbound MMS's media are kept as Bandwidth keeps them, at /api/v2/users/{accountId}/media/…
// on the same host, behind the API credentials (HTTP Basic).

export interface BandwidthRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export interface FakeBandwidth {
  /** The API's origin, as a connection's apiUrl. */
  url: string;
  accountId: string;
  clientId: string;
  clientSecret: string;
  requests: BandwidthRequest[];
  waitFor(match: (r: BandwidthRequest) => boolean, timeoutMs?: number): Promise<BandwidthRequest>;
  /** Holds `bytes` as an inbound MMS's medium; answers its URL (what a message-received callback names). */
  offerMedia(name: string, bytes: Buffer, contentType: string): string;
  /** A media URL that answers 404. */
  missingMediaUrl(): string;
  /** Forgets every medium: their URLs answer 404 from now on. */
  forgetMedia(): void;
  mediaRequests: ProviderMediaRequest[];
  close(): Promise<void>;
}

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;

export async function startFakeBandwidth(options: {
  accountId: string;
  clientId: string;
  clientSecret: string;
}): Promise<FakeBandwidth> {
  const { accountId, clientId, clientSecret } = options;
  const media = providerMedia();
  const mediaPrefix = `/api/v2/users/${accountId}/media/`;
  let sent = 0;
  const fake: FakeBandwidth = {
    url: "",
    ...options,
    requests: [],
    async waitFor(match, timeoutMs = 15_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const found = fake.requests.find(match);
        if (found) return found;
        if (Date.now() > until) throw new Error(`no matching Bandwidth request; got ${fake.requests.length}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    offerMedia(name, bytes, contentType) {
      const path = `${mediaPrefix}${randomUUID()}/0/${name}`;
      media.offer(path, bytes, contentType);
      return `${fake.url}${path}`;
    },
    missingMediaUrl: () => `${fake.url}${mediaPrefix}${randomUUID()}/0/gone.jpg`,
    forgetMedia: () => media.forget(),
    mediaRequests: media.requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const json = (status: number, body: unknown) => ({
    status,
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "").split("?")[0]!;
    if (req.method === "GET" && path.startsWith(mediaPrefix)) {
      if (req.headers.authorization === basic(clientId, clientSecret)) return media.answer(path, req.headers, res);
      media.requests.push({ path, headers: req.headers });
      res.writeHead(401, { "content-type": "application/json" }).end(JSON.stringify({ type: "unauthorized" }));
      return;
    }
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
      const answer =
        path === "/api/v1/oauth2/token"
          ? req.headers.authorization === basic(clientId, clientSecret) && body === "grant_type=client_credentials"
            ? json(200, { access_token: "bw-token", expires_in: 3600 })
            : json(401, {})
          : path === `/api/v2/users/${accountId}/messages` &&
              req.method === "POST" &&
              req.headers.authorization === "Bearer bw-token"
            ? json(202, { id: `16${++sent}bw`, owner: (parsed as { from?: string }).from })
            : json(404, { type: "not-found", description: `${req.method} ${path}` });
      res.writeHead(answer.status, answer.headers).end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}
