import { createPublicKey, verify } from "node:crypto";
import type { InboundMessage } from "../carrier";
import { digitsOf, expectOk, providerRequest, sendOutcome } from "./provider-fetch";
import { withPlus } from "../../messaging/phone-number";
import type {
  CallbackRequest,
  Provider,
  ProviderContext,
  ProviderNumber,
  StatusUpdate,
  Verification,
} from "./provider";

// Telnyx's Messaging API v2 with plain fetch: JSON requests with a Bearer API key. Webhooks are checked by their
// Ed25519 signature (telnyx-signature-ed25519, base64) over `<telnyx-timestamp>|<raw body>`, with the account's
// public key from the Telnyx portal; a timestamp more than 5 minutes from now is refused (a replay).

const TOLERANCE_S = 300;

/** The DER prefix of an Ed25519 SubjectPublicKeyInfo: Telnyx gives the 32 raw key bytes. */
const ED25519_SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");

const FINAL: Record<string, StatusUpdate["status"]> = {
  sent: "sent",
  delivered: "delivered",
  delivery_failed: "undelivered",
  sending_failed: "failed",
};

interface TelnyxError {
  code?: string;
  title?: string;
  detail?: string;
}

interface TelnyxEvent {
  data?: {
    id?: string;
    event_type?: string;
    occurred_at?: string;
    payload?: {
      id?: string;
      text?: string;
      from?: { phone_number?: string; status?: string };
      to?: { phone_number?: string; status?: string }[];
      media?: { url?: string }[];
      parts?: number;
      errors?: TelnyxError[];
    };
  };
}

function reason(json: unknown): { code: string; detail: string } {
  const error = ((json ?? {}) as { errors?: TelnyxError[] }).errors?.[0];
  return { code: error?.code ?? "", detail: [error?.title, error?.detail].filter(Boolean).join(": ") };
}

function event(request: CallbackRequest): TelnyxEvent {
  try {
    return JSON.parse(request.body) as TelnyxEvent;
  } catch {
    return {};
  }
}

export const telnyxProvider = (context: ProviderContext): Provider => {
  const { connection, timeoutMs } = context;
  const apiKey = connection.credentials.apiKey ?? "";
  const profile = connection.settings.messagingProfileId ? String(connection.settings.messagingProfileId) : undefined;
  const base = `${String(connection.settings.apiUrl ?? "https://api.telnyx.com")}/v2`;
  const call = (method: "GET" | "POST" | "PATCH" | "DELETE", path: string, body?: unknown) =>
    providerRequest({
      method,
      url: `${base}${path}`,
      headers: {
        authorization: `Bearer ${apiKey}`,
        accept: "application/json",
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      timeoutMs,
      fetch: context.fetch,
    });
  const words = (json: unknown) => reason(json).detail;
  let publicKey: ReturnType<typeof createPublicKey> | null = null;
  const key = () => {
    if (publicKey) return publicKey;
    const raw = Buffer.from(String(connection.settings.publicKey ?? ""), "base64");
    if (raw.length !== 32) throw new Error("the connection's public key is not a base64 Ed25519 key of 32 bytes");
    publicKey = createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, raw]), format: "der", type: "spki" });
    return publicKey;
  };

  return {
    async send(message) {
      const body: Record<string, unknown> = {
        from: withPlus(message.from),
        to: withPlus(message.to),
        webhook_url: message.statusUrl,
        use_profile_webhooks: false,
      };
      if (message.text) body.text = message.text;
      if (message.media.length > 0) body.media_urls = message.media;
      if (profile) body.messaging_profile_id = profile;
      const answer = await call("POST", "/messages", body);
      return sendOutcome(answer, (json) => (json as { data?: { id?: string } } | null)?.data?.id, reason);
    },

    async check() {
      const json = (await call("GET", "/balance").then((a) => expectOk(a, "Telnyx", words))) as {
        data?: { balance?: string; currency?: string; available_credit?: string };
      };
      const b = json.data ?? {};
      const credit =
        b.available_credit === undefined ? "" : `, available credit ${b.available_credit} ${b.currency ?? ""}`;
      return {
        ok: true,
        words: `Telnyx answers: balance ${b.balance ?? "?"} ${b.currency ?? ""}${credit}.`.replace(/ +\./, "."),
      };
    },

    verify(request: CallbackRequest): Verification {
      const signature = request.headers.get("telnyx-signature-ed25519");
      const timestamp = request.headers.get("telnyx-timestamp");
      if (!signature || !timestamp)
        return { ok: false, reason: "no telnyx-signature-ed25519 or telnyx-timestamp header" };
      if (!/^\d{1,12}$/.test(timestamp) || Math.abs(Date.now() / 1000 - Number(timestamp)) > TOLERANCE_S)
        return { ok: false, reason: `telnyx-timestamp ${timestamp.slice(0, 20)} is more than 5 minutes from now` };
      const bytes = Buffer.from(signature, "base64");
      if (bytes.length !== 64) return { ok: false, reason: "telnyx-signature-ed25519 is not an Ed25519 signature" };
      let good: boolean;
      try {
        good = verify(null, Buffer.from(`${timestamp}|${request.body}`, "utf-8"), key(), bytes);
      } catch (error) {
        return { ok: false, reason: (error as Error).message };
      }
      return good ? { ok: true } : { ok: false, reason: "telnyx-signature-ed25519 does not match" };
    },

    parseStatus(request) {
      const data = event(request).data;
      const payload = data?.payload;
      if (!payload?.id || !(data?.event_type === "message.sent" || data?.event_type === "message.finalized")) return [];
      const status = FINAL[payload.to?.[0]?.status ?? ""];
      if (!status) return [];
      const error = payload.errors?.[0];
      return [
        {
          providerMessageId: payload.id,
          status,
          code: error?.code ?? "",
          meaning: [error?.title, error?.detail].filter(Boolean).join(": "),
          at: data.occurred_at ? new Date(data.occurred_at) : new Date(),
        },
      ];
    },

    parseInbound(request) {
      const data = event(request).data;
      const payload = data?.payload;
      if (data?.event_type !== "message.received" || !payload) return [];
      const from = digitsOf(payload.from?.phone_number ?? "");
      const to = digitsOf(payload.to?.[0]?.phone_number ?? "");
      if (!from || !to) return [];
      const message: InboundMessage = {
        from,
        to,
        text: payload.text ?? "",
        media: (payload.media ?? []).map((m) => m.url ?? "").filter(Boolean),
        numSegments: Math.max(1, payload.parts ?? 1),
        carrierMessageId: payload.id,
        receivedAt: data.occurred_at ? new Date(data.occurred_at) : new Date(),
      };
      return [message];
    },

    async listNumbers() {
      const json = (await call("GET", "/phone_numbers?page[size]=250").then((a) =>
        expectOk(a, "Telnyx numbers", words),
      )) as {
        data?: { id: string; phone_number: string; connection_name?: string; tags?: string[] }[];
      };
      return (json.data ?? []).map((n): ProviderNumber => ({
        providerNumberId: n.id,
        number: digitsOf(n.phone_number),
        label: n.connection_name ?? "",
      }));
    },

    async configureNumber(number) {
      // Inbound messages go to the messaging profile's webhook: the number joins the profile, the profile points here.
      if (!profile) throw new Error("set the connection's messaging profile ID to import Telnyx numbers");
      expectOk(
        await call("PATCH", `/messaging_profiles/${encodeURIComponent(profile)}`, {
          webhook_url: context.inboundUrl,
          webhook_api_version: "2",
        }),
        "Telnyx messaging profile",
        words,
      );
      expectOk(
        await call("PATCH", `/phone_numbers/${encodeURIComponent(number.providerNumberId)}/messaging`, {
          messaging_profile_id: profile,
        }),
        `Telnyx number ${withPlus(number.number)}`,
        words,
      );
    },

    async searchNumbers({ country, areaCode }) {
      const query = new URLSearchParams({
        "filter[country_code]": country.toUpperCase(),
        "filter[features][]": "sms",
        "filter[limit]": "20",
      });
      if (areaCode) query.set("filter[national_destination_code]", areaCode);
      const json = (await call("GET", `/available_phone_numbers?${query}`).then((a) =>
        expectOk(a, "Telnyx search", words),
      )) as {
        data?: { phone_number: string; region_information?: { region_name?: string }[] }[];
      };
      return (json.data ?? []).map((n) => ({
        number: digitsOf(n.phone_number),
        locality: (n.region_information ?? [])
          .map((r) => r.region_name)
          .filter(Boolean)
          .join(", "),
      }));
    },

    async buyNumber(number) {
      if (!profile) throw new Error("set the connection's messaging profile ID to buy Telnyx numbers");
      expectOk(
        await call("POST", "/number_orders", {
          phone_numbers: [{ phone_number: withPlus(number) }],
          messaging_profile_id: profile,
        }),
        `Telnyx order of ${withPlus(number)}`,
        words,
      );
      const json = (await call(
        "GET",
        `/phone_numbers?filter[phone_number]=${encodeURIComponent(withPlus(number))}`,
      ).then((a) => expectOk(a, "Telnyx numbers", words))) as { data?: { id: string; phone_number: string }[] };
      const held = json.data?.[0];
      return { providerNumberId: held?.id ?? digitsOf(number), number: digitsOf(number), label: "" };
    },

    async releaseNumber(number) {
      expectOk(
        await call("DELETE", `/phone_numbers/${encodeURIComponent(number.providerNumberId)}`),
        `Telnyx release of ${withPlus(number.number)}`,
        words,
      );
    },
  };
};
