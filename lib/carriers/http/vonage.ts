import { createHash } from "node:crypto";
import { tokenGenerate, verifySignature } from "@vonage/jwt";
import { getCountryCallingCode, parsePhoneNumberFromString, type CountryCode } from "libphonenumber-js";
import type { InboundMessage } from "../carrier";
import { basicAuth, digitsOf, expectOk, providerRequest, sameSecret, sendOutcome } from "./provider-fetch";
import type {
  CallbackRequest,
  Provider,
  ProviderContext,
  ProviderNumber,
  StatusUpdate,
  Verification,
} from "./provider";
import { secondsLeft } from "./provider";

// Vonage's Messages API (v1) for SMS and MMS with plain fetch, and its Account and Numbers APIs (rest.nexmo.com,
// form-encoded) for the balance and the numbers. A message request is signed with a JWT from the application's
// private key when the connection has an application ID and key, else HTTP Basic with the API key and secret.
// Callbacks are signed webhooks: Authorization: Bearer <JWT, HS256, keyed by the account's signature secret>, whose
// payload_hash claim is the SHA-256 of the body; a token issued more than 5 minutes ago is refused (a replay).

const TOLERANCE_S = 300;

/**
 * Vonage's message statuses as Parley's. submitted: handed to the network. rejected: Vonage or the carrier refused
 * the message and it will not be delivered (the final failure of an SMS or MMS). undeliverable: Vonage could not
 * reach the carrier at all, so the message never left. read (apps only) implies delivered.
 */
const FINAL: Record<string, StatusUpdate["status"]> = {
  submitted: "sent",
  delivered: "delivered",
  read: "delivered",
  rejected: "undelivered",
  undeliverable: "failed",
};

interface VonageError {
  type?: string;
  title?: string | number;
  detail?: string;
}

interface VonageCallback {
  message_uuid?: string;
  status?: string;
  timestamp?: string;
  error?: VonageError;
  channel?: string;
  message_type?: string;
  from?: string;
  to?: string;
  text?: string;
  image?: { url?: string; caption?: string };
  sms?: { num_messages?: string | number };
}

/** An error's code: the number after '#' in its type URL (…/messages#1150), else its title. */
function errorCode(error: VonageError | undefined): string {
  const fromType = /#([\w-]+)$/.exec(error?.type ?? "")?.[1];
  return fromType ?? (error?.title === undefined ? "" : String(error.title));
}

function reason(json: unknown): { code: string; detail: string } {
  const body = (json ?? {}) as VonageError & {
    "error-code"?: string;
    "error-code-label"?: string;
    invalid_parameters?: { name?: string; reason?: string }[];
  };
  if (body["error-code"]) return { code: body["error-code"], detail: body["error-code-label"] ?? "" };
  const invalid = body.invalid_parameters?.[0];
  const invalidWords = invalid ? `${invalid.name ?? ""} ${invalid.reason ?? ""}`.trim() : "";
  const title = body.title === undefined ? "" : String(body.title);
  return {
    code: /#([\w-]+)$/.exec(body.type ?? "")?.[1] ?? title,
    detail: [title, body.detail, invalidWords].filter(Boolean).join(": "),
  };
}

function callback(request: CallbackRequest): VonageCallback {
  try {
    const json = JSON.parse(request.body) as unknown;
    return typeof json === "object" && json !== null ? (json as VonageCallback) : {};
  } catch {
    return {};
  }
}

function claimsOf(token: string): { iat?: number; exp?: number; payload_hash?: string } {
  try {
    return JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString("utf-8")) as {
      iat?: number;
      exp?: number;
      payload_hash?: string;
    };
  } catch {
    return {};
  }
}

const at = (time: string | undefined) => {
  const date = time ? new Date(time) : new Date();
  return Number.isNaN(date.getTime()) ? new Date() : date;
};

/** The providerNumberId of a Vonage number: its country and digits (its Numbers API needs both). */
const numberId = (country: string, msisdn: string) => `${country}:${msisdn}`;

function splitNumberId(number: ProviderNumber): { country: string; msisdn: string } {
  const [country, msisdn] = number.providerNumberId.split(":");
  if (country && msisdn) return { country, msisdn };
  return { country: countryOf(number.number), msisdn: digitsOf(number.number) };
}

function countryOf(digits: string): string {
  const parsed = parsePhoneNumberFromString(`+${digitsOf(digits)}`);
  // A calling code shared by several countries (+1, +44) names one only for a number its plan knows.
  const country = parsed?.country ?? parsed?.getPossibleCountries()[0];
  if (!country) throw new Error(`+${digitsOf(digits)}: its country cannot be told from the number`);
  return country;
}

export const vonageProvider = (context: ProviderContext): Provider => {
  const { connection, timeoutMs } = context;
  const apiKey = String(connection.settings.apiKey ?? "");
  const apiSecret = connection.credentials.apiSecret ?? "";
  const signatureSecret = connection.credentials.signatureSecret ?? "";
  const applicationId = connection.settings.applicationId ? String(connection.settings.applicationId) : "";
  const privateKey = connection.credentials.privateKey ?? "";
  const apiUrl = connection.settings.apiUrl ? String(connection.settings.apiUrl) : undefined;
  const messagesBase = `${apiUrl ?? "https://api.nexmo.com"}/v1`;
  // The Account and Numbers APIs live on rest.nexmo.com; a test server given as the API address answers for both.
  const restBase = apiUrl ?? "https://rest.nexmo.com";

  const messagesAuth = () =>
    applicationId && privateKey ? `Bearer ${tokenGenerate(applicationId, privateKey)}` : basicAuth(apiKey, apiSecret);
  const rest = (method: "GET" | "POST", path: string, form?: URLSearchParams) =>
    providerRequest({
      method,
      url: `${restBase}${path}`,
      headers: {
        authorization: basicAuth(apiKey, apiSecret),
        accept: "application/json",
        ...(form ? { "content-type": "application/x-www-form-urlencoded" } : {}),
      },
      body: form?.toString(),
      timeoutMs,
      fetch: context.fetch,
    });
  const words = (json: unknown) => reason(json).detail;
  const configure = async (number: ProviderNumber) => {
    needSecret("Vonage numbers");
    const { country, msisdn } = splitNumberId(number);
    const form = new URLSearchParams({ country, msisdn, moHttpUrl: context.inboundUrl });
    if (applicationId) form.set("app_id", applicationId);
    expectOk(await rest("POST", "/number/update", form), `Vonage number +${msisdn}`, words);
  };
  function needSecret(what: string) {
    if (!apiSecret)
      throw new Error(`${what}: set the connection's API secret (Vonage's Account and Numbers APIs need it)`);
  }

  return {
    async send(message) {
      const body: Record<string, unknown> = {
        to: digitsOf(message.to),
        from: digitsOf(message.from),
        client_ref: message.messageId,
        webhook_url: message.statusUrl,
      };
      // The Messages API's ttl: how long, in seconds, delivery is attempted.
      if (message.validUntil) body.ttl = secondsLeft(message.validUntil);
      if (message.media.length > 0) {
        // One image per MMS: the first medium, with the text as its caption; the others are not sent.
        Object.assign(body, { channel: "mms", message_type: "image", image: { url: message.media[0] } });
        if (message.text) (body.image as { caption?: string }).caption = message.text;
      } else {
        Object.assign(body, { channel: "sms", message_type: "text", text: message.text });
      }
      let authorization: string;
      try {
        authorization = messagesAuth();
      } catch (error) {
        return { ok: false, outcome: "refused", code: "AUTH", detail: `the private key: ${(error as Error).message}` };
      }
      const answer = await providerRequest({
        method: "POST",
        url: `${messagesBase}/messages`,
        headers: { authorization, accept: "application/json", "content-type": "application/json" },
        body: JSON.stringify(body),
        timeoutMs,
        fetch: context.fetch,
      });
      return sendOutcome(answer, (json) => (json as { message_uuid?: string } | null)?.message_uuid, reason);
    },

    async check() {
      if (!apiSecret)
        return { ok: false, words: "Vonage: set the API secret to check the account (its balance API needs it)." };
      const json = (await rest("GET", "/account/get-balance").then((a) => expectOk(a, "Vonage", words))) as {
        value?: number;
        autoReload?: boolean;
      };
      const value = typeof json.value === "number" ? json.value.toFixed(2) : "?";
      return {
        ok: true,
        words: `Vonage account ${apiKey} answers: balance ${value} EUR${json.autoReload ? ", auto reload on" : ""}.`,
      };
    },

    verify(request: CallbackRequest): Verification {
      const match = /^Bearer\s+(\S+)$/i.exec((request.headers.get("authorization") ?? "").trim());
      if (!match) return { ok: false, reason: "no signed JWT (Authorization: Bearer) on the callback" };
      if (!signatureSecret) return { ok: false, reason: "the connection has no signature secret" };
      const token = match[1] ?? "";
      // Checks the HS256 signature and the token's expiry.
      if (!verifySignature(token, signatureSecret))
        return { ok: false, reason: "the callback's JWT is not signed with the signature secret, or has expired" };
      const claims = claimsOf(token);
      const now = Date.now() / 1000;
      if (typeof claims.iat !== "number") return { ok: false, reason: "the callback's JWT has no iat" };
      if (now - claims.iat > TOLERANCE_S || claims.iat - now > TOLERANCE_S)
        return { ok: false, reason: `the callback's JWT was issued ${Math.floor(now - claims.iat)} s ago` };
      if (claims.payload_hash !== undefined) {
        const hash = createHash("sha256").update(request.body, "utf-8").digest("hex");
        if (!sameSecret(String(claims.payload_hash).toLowerCase(), hash))
          return { ok: false, reason: "the callback's body does not match the JWT's payload_hash" };
      }
      return { ok: true };
    },

    parseStatus(request) {
      const event = callback(request);
      const status = FINAL[event.status ?? ""];
      if (!event.message_uuid || !status) return [];
      return [
        {
          providerMessageId: event.message_uuid,
          status,
          code: event.error ? errorCode(event.error) : "",
          meaning: event.error ? (event.error.detail ?? String(event.error.title ?? "")) : "",
          at: at(event.timestamp),
        },
      ];
    },

    parseInbound(request) {
      const event = callback(request);
      // A status callback has a status; an inbound message has a message_type and no status.
      if (event.status !== undefined || !event.message_type) return [];
      const from = digitsOf(event.from ?? "");
      const to = digitsOf(event.to ?? "");
      if (!from || !to) return [];
      const message: InboundMessage = {
        from,
        to,
        text: event.message_type === "image" ? (event.image?.caption ?? event.text ?? "") : (event.text ?? ""),
        media: event.image?.url ? [event.image.url] : [],
        numSegments: Math.max(1, Number(event.sms?.num_messages ?? 1) || 1),
        carrierMessageId: event.message_uuid,
        receivedAt: at(event.timestamp),
      };
      return [message];
    },

    async listNumbers() {
      needSecret("Vonage numbers");
      const json = (await rest("GET", "/account/numbers?size=100").then((a) =>
        expectOk(a, "Vonage numbers", words),
      )) as { numbers?: { country: string; msisdn: string; type?: string }[] };
      return (json.numbers ?? []).map((n): ProviderNumber => ({
        providerNumberId: numberId(n.country, n.msisdn),
        number: digitsOf(n.msisdn),
        label: n.type ?? "",
      }));
    },

    configureNumber: configure,

    async searchNumbers({ country, areaCode }) {
      needSecret("Vonage search");
      const query = new URLSearchParams({ country: country.toUpperCase(), features: "SMS", size: "20" });
      if (areaCode) {
        // The pattern is matched against the whole number, country code included: it "starts with" the prefix.
        let callingCode = "";
        try {
          callingCode = getCountryCallingCode(country.toUpperCase() as CountryCode);
        } catch {
          throw new Error(`${country}: not a country code Vonage searches by`);
        }
        query.set("pattern", `${callingCode}${digitsOf(areaCode)}`);
        query.set("search_pattern", "0");
      }
      const json = (await rest("GET", `/number/search?${query}`).then((a) => expectOk(a, "Vonage search", words))) as {
        numbers?: { msisdn: string }[];
      };
      return (json.numbers ?? []).map((n) => ({ number: digitsOf(n.msisdn), locality: "" }));
    },

    async buyNumber(number) {
      needSecret("Vonage purchase");
      const msisdn = digitsOf(number);
      const country = countryOf(msisdn);
      expectOk(
        await rest("POST", "/number/buy", new URLSearchParams({ country, msisdn })),
        `Vonage purchase of +${msisdn}`,
        words,
      );
      const bought: ProviderNumber = { providerNumberId: numberId(country, msisdn), number: msisdn, label: "" };
      await configure(bought);
      return bought;
    },

    async releaseNumber(number) {
      needSecret("Vonage release");
      const { country, msisdn } = splitNumberId(number);
      expectOk(
        await rest("POST", "/number/cancel", new URLSearchParams({ country, msisdn })),
        `Vonage release of +${msisdn}`,
        words,
      );
    },
  };
};
