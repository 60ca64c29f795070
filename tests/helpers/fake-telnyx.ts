import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { generateKeyPairSync, randomBytes, randomUUID, sign } from "node:crypto";
import { providerMedia, type ProviderMediaRequest } from "./provider-media";

// A Telnyx stand-in on 127.0.0.1 that holds each request to Telnyx's published API v2: a Bearer API key, JSON bodies
// with Telnyx's field names (from, to, text, media_urls, webhook_url, messaging_profile_id). Mistakes are answered as
// Telnyx answers them ({errors: [{code, title, detail}]}) and kept in `mistakes`. Webhooks are signed as Telnyx signs
// them: Ed25519 over `<telnyx-timestamp>|<body>`, with a key pair whose public half the connection is given.
// An inbound MMS's media are public URLs (Telnyx gives links anyone can fetch for a while), under /media/.

export interface FakeTelnyx {
  url: string;
  apiKey: string;
  /** The base64 raw Ed25519 public key, as the Telnyx portal shows it. */
  publicKey: string;
  sent: { id: string; body: Record<string, unknown> }[];
  mistakes: string[];
  held: { id: string; phone_number: string; messaging_profile_id: string | null }[];
  profiles: Map<string, { webhook_url?: string }>;
  failNext(answers: { status: number; body?: unknown; headers?: Record<string, string> }[]): void;
  /** Posts a signed webhook event (data: {event_type, payload…}); `timestamp` and `signature` override the signing. */
  webhook(
    url: string,
    data: Record<string, unknown>,
    options?: { timestamp?: number; signature?: string | null; body?: string },
  ): Promise<Response>;
  /** The headers and body a webhook would carry, signed (for tests that check them with Telnyx's SDK). */
  signed(data: Record<string, unknown>, timestamp?: number): { body: string; headers: Record<string, string> };
  waitForSends(count: number, timeoutMs?: number): Promise<void>;
  /** Holds `bytes` as an inbound MMS's medium; answers its public URL. */
  offerMedia(bytes: Buffer, contentType: string): string;
  /** A media URL that answers 404. */
  missingMediaUrl(): string;
  /** Forgets every medium: their URLs answer 404 from now on. */
  forgetMedia(): void;
  mediaRequests: ProviderMediaRequest[];
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (body += chunk));
    req.on("end", () => resolve(body));
    req.on("error", reject);
  });
}

export async function startFakeTelnyx(): Promise<FakeTelnyx> {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const raw = publicKey.export({ format: "der", type: "spki" }).subarray(-32);
  let pending: { status: number; body?: unknown; headers?: Record<string, string> }[] = [];
  const media = providerMedia();
  const signed = (data: Record<string, unknown>, timestamp = Math.floor(Date.now() / 1000)) => {
    const body = JSON.stringify({
      data: { record_type: "event", id: randomUUID(), occurred_at: new Date().toISOString(), ...data },
      meta: { attempt: 1 },
    });
    const signature = sign(null, Buffer.from(`${timestamp}|${body}`), privateKey).toString("base64");
    return {
      body,
      headers: {
        "content-type": "application/json",
        "telnyx-timestamp": String(timestamp),
        "telnyx-signature-ed25519": signature,
      },
    };
  };
  const fake: FakeTelnyx = {
    url: "",
    apiKey: `KEY${randomBytes(12).toString("hex")}`,
    publicKey: raw.toString("base64"),
    sent: [],
    mistakes: [],
    held: [],
    profiles: new Map(),
    mediaRequests: media.requests,
    offerMedia(bytes, contentType) {
      const path = `/media/${randomUUID()}`;
      media.offer(path, bytes, contentType);
      return `${fake.url}${path}`;
    },
    missingMediaUrl: () => `${fake.url}/media/${randomUUID()}`,
    forgetMedia: () => media.forget(),
    failNext(answers) {
      pending = [...answers];
    },
    signed,
    async webhook(url, data, options = {}) {
      const message = signed(data, options.timestamp);
      const headers: Record<string, string> = { ...message.headers };
      if (options.signature === null) delete headers["telnyx-signature-ed25519"];
      else if (options.signature !== undefined) headers["telnyx-signature-ed25519"] = options.signature;
      return fetch(url, { method: "POST", headers, body: options.body ?? message.body });
    },
    async waitForSends(count, timeoutMs = 20_000) {
      const until = Date.now() + timeoutMs;
      while (fake.sent.length < count) {
        if (Date.now() > until)
          throw new Error(`Telnyx got ${fake.sent.length} sends, not ${count}: ${fake.mistakes.join("; ")}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify(body));
  };
  const refuse = (res: ServerResponse, status: number, code: string, title: string, detail = "") => {
    fake.mistakes.push(`${title}${detail ? `: ${detail}` : ""}`);
    json(res, status, { errors: [{ code, title, detail }] });
  };
  const server: Server = createServer(async (req, res) => {
    const text = await readBody(req);
    const url = new URL(req.url ?? "/", "http://x");
    if (req.method === "GET" && url.pathname.startsWith("/media/")) return media.answer(url.pathname, req.headers, res);
    if (req.headers.authorization !== `Bearer ${fake.apiKey}`)
      return refuse(res, 401, "10009", "Authentication failed");
    let body: Record<string, unknown> = {};
    if (req.method === "POST" || req.method === "PATCH") {
      if (req.headers["content-type"] !== "application/json")
        return refuse(res, 400, "10015", "Bad Request", "JSON required");
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        return refuse(res, 400, "10015", "Bad Request", "invalid JSON");
      }
    }
    if (req.method === "POST" && url.pathname === "/v2/messages") {
      const next = pending.shift();
      if (next)
        return json(
          res,
          next.status,
          next.body ?? { errors: [{ code: "10001", title: "Unexpected error" }] },
          next.headers,
        );
      for (const field of ["from", "to"])
        if (typeof body[field] !== "string" || !(body[field] as string).startsWith("+"))
          return refuse(res, 422, "40310", "Invalid phone number", field);
      if (!body.text && !Array.isArray(body.media_urls))
        return refuse(res, 422, "40005", "Invalid message body", "text or media_urls is required");
      const known = [
        "from",
        "to",
        "text",
        "media_urls",
        "webhook_url",
        "webhook_failover_url",
        "use_profile_webhooks",
        "messaging_profile_id",
        "subject",
        "type",
      ];
      for (const key of Object.keys(body))
        if (!known.includes(key)) return refuse(res, 422, "10015", "Bad Request", `unknown field ${key}`);
      const id = randomUUID();
      fake.sent.push({ id, body });
      return json(res, 200, {
        data: {
          record_type: "message",
          id,
          type: Array.isArray(body.media_urls) ? "MMS" : "SMS",
          to: [{ phone_number: body.to, status: "queued" }],
          from: { phone_number: body.from },
          text: body.text ?? "",
        },
      });
    }
    if (req.method === "GET" && url.pathname === "/v2/balance")
      return json(res, 200, {
        data: {
          record_type: "balance",
          balance: "300.00",
          currency: "USD",
          credit_limit: "100.00",
          available_credit: "400.00",
        },
      });
    if (req.method === "GET" && url.pathname === "/v2/phone_numbers") {
      const only = url.searchParams.get("filter[phone_number]");
      return json(res, 200, { data: fake.held.filter((n) => !only || n.phone_number === only) });
    }
    const messaging = /^\/v2\/phone_numbers\/([^/]+)\/messaging$/.exec(url.pathname);
    if (messaging && req.method === "PATCH") {
      const number = fake.held.find((n) => n.id === messaging[1]);
      if (!number) return refuse(res, 404, "10005", "Resource not found");
      number.messaging_profile_id = String(body.messaging_profile_id);
      return json(res, 200, { data: number });
    }
    const profile = /^\/v2\/messaging_profiles\/([^/]+)$/.exec(url.pathname);
    if (profile && req.method === "PATCH") {
      fake.profiles.set(profile[1]!, { webhook_url: body.webhook_url as string });
      return json(res, 200, { data: { id: profile[1], webhook_url: body.webhook_url } });
    }
    const release = /^\/v2\/phone_numbers\/([^/]+)$/.exec(url.pathname);
    if (release && req.method === "DELETE") {
      fake.held = fake.held.filter((n) => n.id !== release[1]);
      return json(res, 200, { data: { id: release[1] } });
    }
    refuse(res, 404, "10005", "Resource not found", `${req.method} ${url.pathname}`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}
