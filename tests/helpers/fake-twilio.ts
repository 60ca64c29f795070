import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";
import twilio from "twilio";
import { providerMedia, type ProviderMediaRequest } from "./provider-media";

// A Twilio stand-in on 127.0.0.1 that holds each request to Twilio's published REST API (2010-04-01): the path, HTTP
// Basic auth with the Account SID and auth token, a form-encoded body with Twilio's field names. A request that breaks
// them is answered as Twilio would (401 Authenticate, 400 with Twilio's error code) and kept in `mistakes`, so a test
// sees what was wrong. Callbacks are signed with the official helper library's own getExpectedTwilioSignature.
// An inbound MMS's media are held as Twilio holds them with "HTTP Basic Authentication for media access" on: at
// …/Messages/{MM}/Media/{ME} on the API host, behind the same credentials, answered with a 307 to a CDN on another
// host that asks for none.

export interface TwilioRequest {
  method: string;
  path: string;
  form: URLSearchParams;
  headers: IncomingMessage["headers"];
}

export interface FakeTwilio {
  url: string;
  accountSid: string;
  authToken: string;
  requests: TwilioRequest[];
  /** The Messages.json sends, with their sids. */
  sent: { sid: string; form: URLSearchParams; at: number }[];
  mistakes: string[];
  /** Answers the next sends with this instead (a 429 with Retry-After, a 503, a 400…); hang: never answers. */
  failNext(answers: { status: number; body?: unknown; headers?: Record<string, string>; hang?: boolean }[]): void;
  /** Numbers the account holds (IncomingPhoneNumbers) and those for sale (AvailablePhoneNumbers). */
  held: { sid: string; phone_number: string; friendly_name: string; sms_url: string }[];
  forSale: { phone_number: string; locality: string; region: string }[];
  /** Posts a signed form callback to `url` (a status callback or an inbound message); resolves to the answer. */
  callback(
    url: string,
    params: Record<string, string>,
    options?: { token?: string; signature?: string | null },
  ): Promise<Response>;
  waitForSends(count: number, timeoutMs?: number): Promise<void>;
  /** Holds `bytes` as an inbound MMS's medium; answers its URL on the API host (what an inbound callback names). */
  offerMedia(bytes: Buffer, contentType: string): string;
  /** A media URL on the API host that Twilio answers 404 for. */
  missingMediaUrl(): string;
  /** Forgets every medium, at the API host and at the CDN. */
  forgetMedia(): void;
  /** Requests for media at the API host (whatever their credentials), and at the CDN. */
  mediaRequests: ProviderMediaRequest[];
  cdnRequests: ProviderMediaRequest[];
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

export async function startFakeTwilio(): Promise<FakeTwilio> {
  const accountSid = `AC${randomBytes(16).toString("hex")}`;
  const authToken = randomBytes(16).toString("hex");
  let pending: { status: number; body?: unknown; headers?: Record<string, string>; hang?: boolean }[] = [];
  const base = `/2010-04-01/Accounts/${accountSid}`;
  const cdn = providerMedia();
  /** A medium's path on the API host → its path at the CDN. */
  const redirects = new Map<string, string>();
  let cdnUrl = "";
  const mediaPath = () =>
    `${base}/Messages/MM${randomBytes(16).toString("hex")}/Media/ME${randomBytes(16).toString("hex")}`;
  const cdnServer: Server = createServer((req, res) => cdn.answer((req.url ?? "").split("?")[0]!, req.headers, res));
  const fake: FakeTwilio = {
    url: "",
    accountSid,
    authToken,
    requests: [],
    sent: [],
    mistakes: [],
    held: [],
    forSale: [],
    mediaRequests: [],
    cdnRequests: cdn.requests,
    offerMedia(bytes, contentType) {
      const path = mediaPath();
      const cdnPath = `/${accountSid}/${randomBytes(20).toString("hex")}`;
      cdn.offer(cdnPath, bytes, contentType);
      redirects.set(path, cdnPath);
      return `${fake.url}${path}`;
    },
    missingMediaUrl: () => `${fake.url}${mediaPath()}`,
    forgetMedia() {
      cdn.forget();
      redirects.clear();
    },
    failNext(answers) {
      pending = [...answers];
    },
    async callback(url, params, options = {}) {
      const signature =
        options.signature === undefined
          ? twilio.getExpectedTwilioSignature(options.token ?? authToken, url, params)
          : options.signature;
      return fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          ...(signature === null ? {} : { "x-twilio-signature": signature }),
        },
        body: new URLSearchParams(params).toString(),
      });
    },
    async waitForSends(count, timeoutMs = 20_000) {
      const until = Date.now() + timeoutMs;
      while (fake.sent.length < count) {
        if (Date.now() > until)
          throw new Error(`Twilio got ${fake.sent.length} sends, not ${count}: ${fake.mistakes.join("; ")}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    close: async () => {
      for (const running of [server, cdnServer]) {
        running.closeAllConnections();
        await new Promise<void>((resolve) => running.close(() => resolve()));
      }
    },
  };

  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify(body));
  };
  const refuse = (res: ServerResponse, status: number, code: number, message: string) => {
    fake.mistakes.push(message);
    json(res, status, { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status });
  };

  const server: Server = createServer(async (req, res) => {
    const body = await readBody(req);
    const path = (req.url ?? "").split("?")[0]!;
    const form = new URLSearchParams(body);
    fake.requests.push({ method: req.method ?? "", path: req.url ?? "", form, headers: req.headers });
    const isMedia = new RegExp(`^${base}/Messages/MM[0-9a-f]+/Media/ME[0-9a-f]+$`).test(path);
    if (isMedia) fake.mediaRequests.push({ path, headers: req.headers });
    const expected = `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString("base64")}`;
    if (req.headers.authorization !== expected) return refuse(res, 401, 20003, "Authenticate");
    if (req.method === "POST" && !String(req.headers["content-type"]).startsWith("application/x-www-form-urlencoded"))
      return refuse(res, 400, 20001, "the body must be application/x-www-form-urlencoded");
    if (req.method === "POST" && path === `${base}/Messages.json`) {
      const next = pending.shift();
      if (next?.hang) return; // never answers
      if (next)
        return json(res, next.status, next.body ?? { code: 20500, message: "Internal Server Error" }, next.headers);
      for (const field of ["To", "From"])
        if (!form.get(field)?.startsWith("+")) return refuse(res, 400, 21211, `Invalid '${field}' Phone Number`);
      if (!form.get("Body") && form.getAll("MediaUrl").length === 0)
        return refuse(res, 400, 21602, "Message body is required");
      for (const key of form.keys())
        if (
          !["To", "From", "Body", "MediaUrl", "StatusCallback", "MessagingServiceSid", "ValidityPeriod"].includes(key)
        )
          return refuse(res, 400, 21000, `unknown field ${key}`);
      // Twilio takes whole seconds from 1 to 36,000 (its error 21624 otherwise).
      const validity = form.get("ValidityPeriod");
      if (validity !== null && !(/^\d+$/.test(validity) && Number(validity) >= 1 && Number(validity) <= 36_000))
        return refuse(res, 400, 21624, "Invalid validity period value");
      const sid = `${form.getAll("MediaUrl").length > 0 ? "MM" : "SM"}${randomBytes(16).toString("hex")}`;
      fake.sent.push({ sid, form, at: Date.now() });
      return json(res, 201, {
        sid,
        account_sid: accountSid,
        status: "queued",
        to: form.get("To"),
        from: form.get("From"),
        body: form.get("Body") ?? "",
        num_segments: "1",
      });
    }
    if (req.method === "GET" && isMedia) {
      const cdnPath = redirects.get(path);
      if (!cdnPath) return refuse(res, 404, 20404, `The requested resource ${path} was not found`);
      res.writeHead(307, { location: `${cdnUrl}${cdnPath}`, "content-length": "0" }).end();
      return;
    }
    if (req.method === "GET" && path === `${base}.json`)
      return json(res, 200, { sid: accountSid, friendly_name: "Clinic", status: "active" });
    if (req.method === "GET" && path === `${base}/Balance.json`)
      return json(res, 200, { account_sid: accountSid, balance: "12.34", currency: "USD" });
    if (req.method === "GET" && path === `${base}/IncomingPhoneNumbers.json`)
      return json(res, 200, { incoming_phone_numbers: fake.held });
    const update = new RegExp(`^${base}/IncomingPhoneNumbers/(PN[0-9a-f]+)\\.json$`).exec(path);
    if (update && req.method === "POST") {
      const number = fake.held.find((n) => n.sid === update[1]);
      if (!number) return refuse(res, 404, 20404, "The requested resource was not found");
      number.sms_url = form.get("SmsUrl") ?? number.sms_url;
      return json(res, 200, number);
    }
    if (update && req.method === "DELETE") {
      fake.held = fake.held.filter((n) => n.sid !== update[1]);
      res.writeHead(204).end();
      return;
    }
    if (req.method === "GET" && /^.*\/AvailablePhoneNumbers\/[A-Z]{2}\/Local\.json$/.test(path)) {
      const area = new URL(req.url!, "http://x").searchParams.get("AreaCode") ?? "";
      return json(res, 200, {
        available_phone_numbers: fake.forSale.filter((n) => n.phone_number.startsWith(`+1${area}`)),
      });
    }
    if (req.method === "POST" && path === `${base}/IncomingPhoneNumbers.json`) {
      const wanted = form.get("PhoneNumber") ?? "";
      if (!fake.forSale.some((n) => n.phone_number === wanted))
        return refuse(res, 400, 21422, "PhoneNumber is not available");
      fake.forSale = fake.forSale.filter((n) => n.phone_number !== wanted);
      const number = {
        sid: `PN${randomBytes(16).toString("hex")}`,
        phone_number: wanted,
        friendly_name: wanted,
        sms_url: form.get("SmsUrl") ?? "",
      };
      fake.held.push(number);
      return json(res, 201, number);
    }
    refuse(res, 404, 20404, `The requested resource ${req.method} ${path} was not found`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await new Promise<void>((resolve) => cdnServer.listen(0, "127.0.0.1", resolve));
  cdnUrl = `http://127.0.0.1:${(cdnServer.address() as AddressInfo).port}`;
  return fake;
}
