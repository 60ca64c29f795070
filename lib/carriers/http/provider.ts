import type { InboundMessage } from "../carrier";
import type { OpenConnection } from "../connections/manage-connections";

// What an HTTP provider (Twilio, Telnyx, Bandwidth, Vonage) implements: its requests and its callbacks, nothing of
// pacing or recording. lib/carriers/http/http-carrier.ts makes a Carrier of it for the worker; the callback routes
// (lib/carriers/http/handle-callback.ts) verify and read what it posts back.

/** One whole message, as one request to the provider (the provider splits long texts itself). */
export interface ProviderMessage {
  messageId: string;
  /** E.164 digits without '+'. */
  from: string;
  to: string;
  text: string;
  /** MMS media URLs, sent as the provider's media fields. */
  media: string[];
  /** Where the provider posts this message's status callbacks (the connection's statusUrl). */
  statusUrl: string;
  /** Until when (ms since the epoch) the message may be delivered (the send's validitySeconds), if it has one. */
  validUntil?: number | null;
}

/** Whole seconds from now until `validUntil` (at least 1), for providers that take a validity in seconds. */
export function secondsLeft(validUntil: number, now = Date.now()): number {
  return Math.max(1, Math.ceil((validUntil - now) / 1000));
}

export type ProviderSend =
  | { ok: true; providerMessageId: string }
  /** The provider refused the message (4xx): it fails with the provider's reason. */
  | { ok: false; outcome: "refused"; code: string; detail: string }
  /** Not taken, safe to try again later (429, 5xx, no connection): Retry-After, when given, in ms. */
  | { ok: false; outcome: "retry"; code: string; detail: string; retryAfterMs?: number }
  /** Sent, but no answer came (a timeout, a connection cut mid-answer): it may have left; never resent blindly. */
  | { ok: false; outcome: "unknown"; detail: string };

/** A status callback's news of one message. */
export interface StatusUpdate {
  providerMessageId: string;
  /** sent: handed to the network (recorded already at submit); the others are final. */
  status: "sent" | "delivered" | "undelivered" | "failed";
  /** The provider's code ("30003"; "" when none) and its meaning in words. */
  code: string;
  meaning: string;
  at: Date;
}

/** A callback as it arrived, unread: verified first, parsed only then. */
export interface CallbackRequest {
  /** The absolute URL the provider called (the connection's statusUrl or inboundUrl, with any query). */
  url: string;
  headers: Headers;
  /** The raw body, exactly as sent: signatures cover its bytes. */
  body: string;
}

export type CallbackKind = "status" | "inbound";

export type Verification = { ok: true } | { ok: false; reason: string };

/** A number the provider account holds. */
export interface ProviderNumber {
  /** The provider's id for it (Twilio's PN… sid, Telnyx's id); the number itself where there is none. */
  providerNumberId: string;
  /** E.164 digits without '+'. */
  number: string;
  label: string;
}

/** A number the provider offers for sale. */
export interface AvailableNumber {
  number: string;
  /** Where it is, in the provider's words (a city, a region), "" when not given. */
  locality: string;
}

export interface Provider {
  send(message: ProviderMessage): Promise<ProviderSend>;
  /** Calls the provider's account or balance endpoint: what it answered, in words. */
  check(): Promise<{ ok: boolean; words: string }>;
  verify(request: CallbackRequest, kind: CallbackKind): Verification | Promise<Verification>;
  /** The status updates of a verified callback (none: an event with nothing to record). */
  parseStatus(request: CallbackRequest): StatusUpdate[];
  /** The inbound messages of a verified callback. */
  parseInbound(request: CallbackRequest): InboundMessage[];
  /** The answer a callback expects (Twilio's inbound wants TwiML); default: 200 with an empty body. */
  callbackAnswer?(kind: CallbackKind): Response;
  /** The numbers the provider account holds. */
  listNumbers?(): Promise<ProviderNumber[]>;
  /** Points a held number's inbound messages (and status, where set per number) at this connection's URLs. */
  configureNumber?(number: ProviderNumber): Promise<void>;
  searchNumbers?(query: { country: string; areaCode?: string }): Promise<AvailableNumber[]>;
  /** Buys a number, already configured for this connection. */
  buyNumber?(number: string): Promise<ProviderNumber>;
  releaseNumber?(number: ProviderNumber): Promise<void>;
  /**
   * The headers to fetch an inbound medium at `url` with: the provider's credentials when the URL is on its own API
   * host (Twilio's and Bandwidth's media need them), nothing for any other host.
   */
  mediaHeaders?(url: URL): Record<string, string> | undefined;
}

export interface ProviderContext {
  connection: OpenConnection;
  inboundUrl: string;
  statusUrl: string;
  /** How long a request may take before its outcome counts as unknown (ms). */
  timeoutMs: number;
  /** fetch, injectable for unit tests of a provider's mapping; the real one otherwise. */
  fetch?: typeof fetch;
}

export type ProviderFactory = (context: ProviderContext) => Provider;

/** A provider's error: its status and words, shown as the answer to a portal or CLI action. */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = "ProviderError";
  }
}
