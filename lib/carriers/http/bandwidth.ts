import type { InboundMessage } from "../carrier";
import { basicAuth, digitsOf, expectOk, providerRequest, sameSecret, sendOutcome } from "./provider-fetch";
import { withPlus } from "../../messaging/phone-number";
import type { CallbackKind, CallbackRequest, Provider, ProviderContext, StatusUpdate, Verification } from "./provider";

// Bandwidth's Messaging API v2 with plain fetch: JSON requests to messaging.bandwidth.com. Its API credentials are
// OAuth 2.0 client credentials (a client ID and secret, exchanged for a bearer token at api.bandwidth.com); legacy
// API users (username and password in HTTP Basic) still work until Bandwidth retires them, so a token endpoint that
// refuses the pair makes the connection fall back to Basic. Callbacks carry HTTP Basic credentials that are set on
// the messaging application (its callback user ID and password), checked here in constant time.
//
// Bandwidth posts events per application, not per message: the application's inbound callback URL gets received
// messages, its status (outbound) callback URL gets message-sending, -delivered and -failed; an application with a
// single callback URL gets both at that one. Each event is a JSON array of events, so parseStatus reads only the
// status events and parseInbound only the received ones: both may run on any Bandwidth callback.

const STATUS_TYPES = new Set(["message-sending", "message-delivered", "message-failed"]);
const INBOUND_TYPE = "message-received";
/** How long before its end a token is renewed. */
const TOKEN_MARGIN_MS = 60_000;

interface BandwidthEvent {
  type?: string;
  time?: string;
  description?: string;
  to?: string;
  errorCode?: number | string;
  message?: {
    id?: string;
    owner?: string;
    time?: string;
    from?: string;
    to?: string[];
    text?: string;
    media?: string[];
    tag?: string;
    segmentCount?: number;
  };
}

function events(request: CallbackRequest): BandwidthEvent[] {
  try {
    const json = JSON.parse(request.body) as unknown;
    const list = Array.isArray(json) ? json : [json];
    return list.filter((e): e is BandwidthEvent => typeof e === "object" && e !== null);
  } catch {
    return [];
  }
}

/** Which kinds of event a Bandwidth callback carries: a single callback URL gets both, whichever was pasted. */
export function bandwidthCallbackKinds(request: CallbackRequest): CallbackKind[] {
  const types = events(request).map((e) => e.type ?? "");
  const kinds: CallbackKind[] = [];
  if (types.some((t) => STATUS_TYPES.has(t))) kinds.push("status");
  if (types.includes(INBOUND_TYPE)) kinds.push("inbound");
  return kinds;
}

/**
 * The answer to a callback without valid credentials. Bandwidth's callbacks follow HTTP Basic as RFC 7235 frames it
 * (a 401 with a WWW-Authenticate challenge), so a refusal should carry the challenge: a bare 401 may not bring the
 * application's credentials on the next try.
 */
export function bandwidthChallenge(): Response {
  return new Response(null, { status: 401, headers: { "www-authenticate": 'Basic realm="Parley", charset="UTF-8"' } });
}

/**
 * A message-failed error code as Parley's status. Bandwidth's codes are four digits: the second says who reported
 * it. 41xx, 43xx, 44xx (Bandwidth rejected the request) and 51xx, 52xx, 55xx (a Bandwidth service failure): the
 * message never left Bandwidth, so it failed. 47xx (the carrier rejected it), 56xx (a carrier service failure),
 * 59xx and 9xxx (a downstream failure of unclear cause, such as 9902, no delivery receipt in time): it left Bandwidth
 * and was not delivered.
 */
export function bandwidthFailureStatus(errorCode: string): "failed" | "undelivered" {
  return /^([45][679]\d\d|9\d\d\d)$/.test(errorCode) ? "undelivered" : "failed";
}

function reason(json: unknown): { code: string; detail: string } {
  const body = (json ?? {}) as {
    type?: string;
    description?: string;
    message?: string;
    fieldErrors?: { fieldName?: string; description?: string }[];
  };
  const field = body.fieldErrors?.[0];
  const fieldWords = field ? `${field.fieldName ?? ""} ${field.description ?? ""}`.trim() : "";
  return {
    code: body.type ?? "",
    detail: [body.description ?? body.message, fieldWords].filter(Boolean).join(": "),
  };
}

const at = (time: string | undefined) => {
  const date = time ? new Date(time) : new Date();
  return Number.isNaN(date.getTime()) ? new Date() : date;
};

export const bandwidthProvider = (context: ProviderContext): Provider => {
  const { connection, timeoutMs } = context;
  const accountId = String(connection.settings.accountId);
  const username = String(connection.settings.username ?? "");
  const password = connection.credentials.password ?? "";
  const applicationId = String(connection.settings.applicationId ?? "");
  const callbackUsername = String(connection.settings.callbackUsername ?? "");
  const callbackPassword = connection.credentials.callbackPassword ?? "";
  const apiUrl = connection.settings.apiUrl ? String(connection.settings.apiUrl) : undefined;
  const base = `${apiUrl ?? "https://messaging.bandwidth.com"}/api/v2/users/${encodeURIComponent(accountId)}`;
  // A test server or an edge given as the API address answers for the token too.
  const tokenUrl = `${apiUrl ?? "https://api.bandwidth.com"}/api/v1/oauth2/token`;

  let token: { value: string; until: number } | null = null;
  let legacyUser = false;
  /** The Authorization header, or the reason none could be had (the message was not sent: worth a retry). */
  const authorization = async (): Promise<{ header: string } | { failed: string }> => {
    if (legacyUser) return { header: basicAuth(username, password) };
    if (token && token.until > Date.now()) return { header: `Bearer ${token.value}` };
    const answer = await providerRequest({
      method: "POST",
      url: tokenUrl,
      headers: {
        authorization: basicAuth(username, password),
        "content-type": "application/x-www-form-urlencoded",
        accept: "application/json",
      },
      body: "grant_type=client_credentials",
      timeoutMs,
      fetch: context.fetch,
    });
    if (answer.kind !== "answered") return { failed: `Bandwidth token: ${answer.detail}` };
    const json = (answer.json ?? {}) as { access_token?: string; expires_in?: number };
    if (answer.status === 200 && json.access_token) {
      const lifetimeMs = (Number(json.expires_in) || 3600) * 1000;
      token = { value: json.access_token, until: Date.now() + Math.max(0, lifetimeMs - TOKEN_MARGIN_MS) };
      return { header: `Bearer ${token.value}` };
    }
    if (answer.status === 400 || answer.status === 401 || answer.status === 403) {
      legacyUser = true;
      return { header: basicAuth(username, password) };
    }
    return { failed: `Bandwidth token: HTTP ${answer.status}` };
  };

  const call = async (method: "GET" | "POST", path: string, body?: unknown) => {
    const auth = await authorization();
    if ("failed" in auth) return { kind: "not-sent" as const, detail: auth.failed };
    return providerRequest({
      method,
      url: `${base}${path}`,
      headers: {
        authorization: auth.header,
        accept: "application/json",
        ...(body === undefined ? {} : { "content-type": "application/json; charset=utf-8" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      timeoutMs,
      fetch: context.fetch,
    });
  };

  const mediaOrigin = new URL(apiUrl ?? "https://messaging.bandwidth.com").origin;

  return {
    // Bandwidth's media URLs (…/users/{accountId}/media/…) are on its messaging API and need the API credentials.
    mediaHeaders: (url) => (url.origin === mediaOrigin ? { authorization: basicAuth(username, password) } : undefined),
    async send(message) {
      // No status URL per message: status callbacks go to the application's status callback URL.
      const body: Record<string, unknown> = {
        applicationId,
        to: [withPlus(message.to)],
        from: withPlus(message.from),
        tag: message.messageId,
      };
      if (message.text) body.text = message.text;
      if (message.media.length > 0) body.media = message.media;
      // Bandwidth's expiration: the RFC 3339 time the message expires by.
      if (message.validUntil) body.expiration = new Date(message.validUntil).toISOString();
      const answer = await call("POST", "/messages", body);
      return sendOutcome(answer, (json) => (json as { id?: string } | null)?.id, reason);
    },

    async check() {
      const answer = await call("GET", "/media");
      const media = expectOk(answer, "Bandwidth", (json) => reason(json).detail);
      const count = Array.isArray(media) ? media.length : 0;
      return {
        ok: true,
        words: `Bandwidth account ${accountId} answers (${legacyUser ? "API user" : "API credentials"}): ${count} media file${count === 1 ? "" : "s"} stored. Status callbacks come to the application's callback URL, not per message.`,
      };
    },

    verify(request: CallbackRequest): Verification {
      const header = request.headers.get("authorization") ?? "";
      const match = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header.trim());
      if (!match) return { ok: false, reason: "no HTTP Basic credentials on the callback" };
      if (!callbackUsername || !callbackPassword)
        return { ok: false, reason: "the connection has no callback username and password" };
      const given = Buffer.from(match[1] ?? "", "base64").toString("utf-8");
      // The pair compared as one string: the time taken says nothing of which half is wrong.
      const good = sameSecret(given, `${callbackUsername}:${callbackPassword}`);
      return good ? { ok: true } : { ok: false, reason: "the callback's username or password is wrong" };
    },

    parseStatus(request) {
      const updates: StatusUpdate[] = [];
      for (const event of events(request)) {
        const id = event.message?.id;
        if (!id || !STATUS_TYPES.has(event.type ?? "")) continue;
        const code = event.errorCode === undefined || event.errorCode === null ? "" : String(event.errorCode);
        const status: StatusUpdate["status"] =
          event.type === "message-delivered"
            ? "delivered"
            : event.type === "message-failed"
              ? bandwidthFailureStatus(code)
              : "sent";
        const meaning = event.type === "message-failed" ? (event.description ?? "") : "";
        updates.push({ providerMessageId: id, status, code, meaning, at: at(event.time) });
      }
      return updates;
    },

    parseInbound(request) {
      const messages: InboundMessage[] = [];
      for (const event of events(request)) {
        const message = event.message;
        if (event.type !== INBOUND_TYPE || !message) continue;
        const from = digitsOf(message.from ?? "");
        // The event's `to` is this number's copy of it (a group message comes once per Bandwidth number).
        const to = digitsOf(event.to ?? message.owner ?? message.to?.[0] ?? "");
        if (!from || !to) continue;
        messages.push({
          from,
          to,
          text: message.text ?? "",
          media: (message.media ?? []).filter((url) => typeof url === "string" && url !== ""),
          numSegments: Math.max(1, Number(message.segmentCount) || 1),
          carrierMessageId: message.id,
          receivedAt: at(event.time ?? message.time),
        });
      }
      return messages;
    },
  };
};
