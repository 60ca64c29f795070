import { timingSafeEqual } from "node:crypto";
import { ProviderError, type ProviderSend } from "./provider";

// One HTTP request to a provider, and its answer classified the way delivery needs it: taken, refused (4xx: the
// message fails), worth another try later (429, 5xx, a connection that could not be made), or unknown (the request
// went out and no answer came: the message may have left).

/** Errors that happen before a request is written: trying again cannot send a message twice. */
const NOT_SENT_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_SOCKET_CLOSED_BEFORE_CONNECT",
]);

export interface ProviderRequest {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  url: string;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
  fetch?: typeof fetch;
}

export type ProviderAnswer =
  | { kind: "answered"; status: number; headers: Headers; json: unknown; text: string }
  | { kind: "not-sent"; detail: string }
  | { kind: "unknown"; detail: string };

function causeCode(error: unknown): string {
  const cause = (error as { cause?: { code?: string; errors?: { code?: string }[] } }).cause;
  return cause?.code ?? cause?.errors?.[0]?.code ?? (error as { code?: string }).code ?? "";
}

export async function providerRequest(request: ProviderRequest): Promise<ProviderAnswer> {
  const doFetch = request.fetch ?? fetch;
  let response: Response;
  let text: string;
  try {
    response = await doFetch(request.url, {
      method: request.method,
      headers: { "user-agent": "Parley", ...request.headers },
      body: request.body,
      redirect: "error",
      signal: AbortSignal.timeout(request.timeoutMs),
    });
    text = await response.text();
  } catch (error) {
    const code = causeCode(error);
    if (NOT_SENT_CODES.has(code)) return { kind: "not-sent", detail: `${code}: the provider could not be reached` };
    const name = (error as Error).name;
    const detail =
      name === "TimeoutError" || name === "AbortError"
        ? `no answer within ${request.timeoutMs >= 1000 ? `${Math.round(request.timeoutMs / 1000)} s` : `${request.timeoutMs} ms`}`
        : `${code || name}: ${(error as Error).message}`;
    return { kind: "unknown", detail };
  }
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  return { kind: "answered", status: response.status, headers: response.headers, json, text };
}

/** Retry-After in ms: seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const value = headers.get("retry-after")?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Math.min(Number(value), 24 * 3600) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * A send's answer as delivery needs it. `accepted` reads the provider's message id from a 2xx answer; `reason`
 * reads the provider's error code and words from any other answer.
 */
export function sendOutcome(
  answer: ProviderAnswer,
  accepted: (json: unknown) => string | undefined,
  reason: (json: unknown, text: string) => { code: string; detail: string },
): ProviderSend {
  if (answer.kind === "not-sent") return { ok: false, outcome: "retry", code: "UNREACHABLE", detail: answer.detail };
  if (answer.kind === "unknown") return { ok: false, outcome: "unknown", detail: answer.detail };
  if (answer.status >= 200 && answer.status < 300) {
    const id = accepted(answer.json);
    if (id) return { ok: true, providerMessageId: id };
    return { ok: false, outcome: "unknown", detail: `HTTP ${answer.status} without a message id` };
  }
  const { code, detail } = reason(answer.json, answer.text);
  const words = `HTTP ${answer.status}${detail ? `: ${detail}` : ""}`;
  if (answer.status === 429 || answer.status >= 500)
    return {
      ok: false,
      outcome: "retry",
      code: code || `HTTP_${answer.status}`,
      detail: words,
      retryAfterMs: retryAfterMs(answer.headers),
    };
  return { ok: false, outcome: "refused", code: code || `HTTP_${answer.status}`, detail: words };
}

/** A 2xx answer's JSON, or a ProviderError with the provider's words (for the portal's and the CLI's actions). */
export function expectOk(
  answer: ProviderAnswer,
  what: string,
  reason: (json: unknown, text: string) => string,
): unknown {
  if (answer.kind !== "answered") throw new ProviderError(`${what}: ${answer.detail}`, 502);
  if (answer.status >= 200 && answer.status < 300) return answer.json;
  const words = reason(answer.json, answer.text) || answer.text.slice(0, 200);
  throw new ProviderError(`${what}: HTTP ${answer.status}${words ? `, ${words}` : ""}`, answer.status);
}

export function basicAuth(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;
}

/** Two secrets (a signature, a pair of credentials) compared in constant time. */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function digitsOf(number: string): string {
  return number.replace(/[^\d]/g, "");
}
