import { createHmac } from "node:crypto";
import type { InboundMessage } from "../carrier";
import { basicAuth, digitsOf, expectOk, providerRequest, sameSecret, sendOutcome } from "./provider-fetch";
import { withPlus } from "../../messaging/phone-number";
import type {
  CallbackRequest,
  Provider,
  ProviderContext,
  ProviderNumber,
  StatusUpdate,
  Verification,
} from "./provider";
import { secondsLeft } from "./provider";

// Twilio's Programmable Messaging over its REST API (2010-04-01), with plain fetch: form-encoded requests with HTTP
// Basic auth (Account SID and auth token). Callbacks are checked by X-Twilio-Signature: base64 HMAC-SHA1, keyed by
// the auth token, of the URL Twilio called followed by each form field's name and value, sorted by name.

/** Twilio's error codes seen on messages, in its words (https://www.twilio.com/docs/api/errors). */
const ERROR_MEANINGS: Record<string, string> = {
  "21211": "Invalid 'To' phone number",
  "21408": "Permission to send an SMS has not been enabled for the region",
  "21606": "The 'From' phone number is not a valid, SMS-capable number for this account",
  "21610": "Attempt to send to an unsubscribed recipient",
  "21614": "'To' number is not a valid mobile number",
  "30001": "Queue overflow",
  "30002": "Account suspended",
  "30003": "Unreachable destination handset",
  "30004": "Message blocked",
  "30005": "Unknown destination handset",
  "30006": "Landline or unreachable carrier",
  "30007": "Message filtered by the carrier",
  "30008": "Unknown error",
  "30034": "Message from an unregistered number (US A2P 10DLC)",
};

export function twilioErrorMeaning(code: string): string {
  return ERROR_MEANINGS[code] ?? (code ? "see Twilio's error reference" : "");
}

const FINAL: Record<string, StatusUpdate["status"]> = {
  sent: "sent",
  delivered: "delivered",
  undelivered: "undelivered",
  failed: "failed",
  canceled: "failed",
};

/** The signature Twilio sends for a form POST to `url` (its algorithm, as its helper libraries compute it). */
export function twilioSignature(authToken: string, url: string, params: URLSearchParams): string {
  const names = [...new Set(params.keys())].sort();
  let data = url;
  for (const name of names) for (const value of [...new Set(params.getAll(name))].sort()) data += name + value;
  return createHmac("sha1", authToken).update(Buffer.from(data, "utf-8")).digest("base64");
}

function reason(json: unknown): { code: string; detail: string } {
  const body = (json ?? {}) as { code?: number | string; message?: string };
  return { code: body.code === undefined ? "" : String(body.code), detail: body.message ?? "" };
}

export const twilioProvider = (context: ProviderContext): Provider => {
  const { connection, timeoutMs } = context;
  const sid = String(connection.settings.accountSid);
  const token = connection.credentials.authToken ?? "";
  const base = `${String(connection.settings.apiUrl ?? "https://api.twilio.com")}/2010-04-01/Accounts/${encodeURIComponent(sid)}`;
  const call = (method: "GET" | "POST" | "DELETE", path: string, form?: URLSearchParams) =>
    providerRequest({
      method,
      url: `${base}${path}`,
      headers: {
        authorization: basicAuth(sid, token),
        accept: "application/json",
        ...(form ? { "content-type": "application/x-www-form-urlencoded" } : {}),
      },
      body: form?.toString(),
      timeoutMs,
      fetch: context.fetch,
    });
  const words = (json: unknown) => reason(json).detail;
  const numberOf = (n: { sid: string; phone_number: string; friendly_name?: string }): ProviderNumber => ({
    providerNumberId: n.sid,
    number: digitsOf(n.phone_number),
    label: n.friendly_name ?? "",
  });
  const webhookForm = () => new URLSearchParams({ SmsUrl: context.inboundUrl, SmsMethod: "POST" });

  const apiOrigin = new URL(String(connection.settings.apiUrl ?? "https://api.twilio.com")).origin;

  return {
    // Twilio's media URLs are on its API host and answer with the account's credentials when its media are
    // protected ("HTTP Basic Authentication for media access"); the redirect to its CDN gets none.
    mediaHeaders: (url) => (url.origin === apiOrigin ? { authorization: basicAuth(sid, token) } : undefined),
    async send(message) {
      const form = new URLSearchParams({ To: withPlus(message.to), From: withPlus(message.from) });
      if (message.text) form.set("Body", message.text);
      for (const url of message.media) form.append("MediaUrl", url);
      form.set("StatusCallback", message.statusUrl);
      // Twilio's ValidityPeriod: whole seconds, 1 to 36,000 (10 hours); a longer validity is Twilio's maximum.
      if (message.validUntil) form.set("ValidityPeriod", String(Math.min(36_000, secondsLeft(message.validUntil))));
      const answer = await call("POST", "/Messages.json", form);
      return sendOutcome(answer, (json) => (json as { sid?: string } | null)?.sid, reason);
    },

    async check() {
      const account = (await call("GET", ".json").then((a) => expectOk(a, "Twilio", words))) as {
        friendly_name?: string;
        status?: string;
      };
      let balance = "";
      const answer = await call("GET", "/Balance.json");
      if (answer.kind === "answered" && answer.status === 200) {
        const b = answer.json as { balance?: string; currency?: string };
        if (b.balance !== undefined) balance = `, balance ${b.balance} ${b.currency ?? ""}`.trimEnd();
      }
      const status = account.status ?? "unknown";
      return {
        ok: status === "active",
        words: `Twilio account "${account.friendly_name ?? sid}" is ${status}${balance}.`,
      };
    },

    verify(request: CallbackRequest): Verification {
      const header = request.headers.get("x-twilio-signature");
      if (!header) return { ok: false, reason: "no X-Twilio-Signature header" };
      const params = new URLSearchParams(request.body);
      if (!sameSecret(header, twilioSignature(token, request.url, params)))
        return { ok: false, reason: "X-Twilio-Signature does not match" };
      return { ok: true };
    },

    parseStatus(request) {
      const form = new URLSearchParams(request.body);
      const id = form.get("MessageSid") ?? form.get("SmsSid");
      const status = FINAL[form.get("MessageStatus") ?? form.get("SmsStatus") ?? ""];
      if (!id || !status) return [];
      const code = form.get("ErrorCode") ?? "";
      return [{ providerMessageId: id, status, code, meaning: twilioErrorMeaning(code), at: new Date() }];
    },

    parseInbound(request) {
      const form = new URLSearchParams(request.body);
      const status = form.get("MessageStatus") ?? form.get("SmsStatus");
      if (status && status !== "received") return []; // a status callback posted to the inbound address
      const from = digitsOf(form.get("From") ?? "");
      const to = digitsOf(form.get("To") ?? "");
      if (!from || !to) return [];
      const media: string[] = [];
      const count = Math.min(Number(form.get("NumMedia") ?? 0) || 0, 10);
      for (let i = 0; i < count; i++) {
        const url = form.get(`MediaUrl${i}`);
        if (url) media.push(url);
      }
      const message: InboundMessage = {
        from,
        to,
        text: form.get("Body") ?? "",
        media,
        numSegments: Math.max(1, Number(form.get("NumSegments") ?? 1) || 1),
        carrierMessageId: form.get("MessageSid") ?? undefined,
        receivedAt: new Date(),
      };
      return [message];
    },

    callbackAnswer(kind) {
      if (kind === "status") return new Response(null, { status: 204 });
      return new Response('<?xml version="1.0" encoding="UTF-8"?><Response></Response>', {
        headers: { "content-type": "text/xml" },
      });
    },

    async listNumbers() {
      const json = (await call("GET", "/IncomingPhoneNumbers.json?PageSize=1000").then((a) =>
        expectOk(a, "Twilio numbers", words),
      )) as { incoming_phone_numbers?: { sid: string; phone_number: string; friendly_name?: string }[] };
      return (json.incoming_phone_numbers ?? []).map(numberOf);
    },

    async configureNumber(number) {
      const path = `/IncomingPhoneNumbers/${encodeURIComponent(number.providerNumberId)}.json`;
      expectOk(await call("POST", path, webhookForm()), `Twilio number ${withPlus(number.number)}`, words);
    },

    async searchNumbers({ country, areaCode }) {
      const query = new URLSearchParams({ SmsEnabled: "true", PageSize: "20" });
      if (areaCode) query.set("AreaCode", areaCode);
      const path = `/AvailablePhoneNumbers/${encodeURIComponent(country.toUpperCase())}/Local.json?${query}`;
      const json = (await call("GET", path).then((a) => expectOk(a, "Twilio search", words))) as {
        available_phone_numbers?: { phone_number: string; locality?: string; region?: string }[];
      };
      return (json.available_phone_numbers ?? []).map((n) => ({
        number: digitsOf(n.phone_number),
        locality: [n.locality, n.region].filter(Boolean).join(", "),
      }));
    },

    async buyNumber(number) {
      const form = webhookForm();
      form.set("PhoneNumber", withPlus(number));
      const json = (await call("POST", "/IncomingPhoneNumbers.json", form).then((a) =>
        expectOk(a, `Twilio purchase of ${withPlus(number)}`, words),
      )) as { sid: string; phone_number: string; friendly_name?: string };
      return numberOf(json);
    },

    async releaseNumber(number) {
      const path = `/IncomingPhoneNumbers/${encodeURIComponent(number.providerNumberId)}.json`;
      expectOk(await call("DELETE", path), `Twilio release of ${withPlus(number.number)}`, words);
    },
  };
};
