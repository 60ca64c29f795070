import type { LookupFunction } from "node:net";
import { Agent } from "undici";
import { checkLiteralHost, guardedLookup, parseWebhookUrl, WebhookUrlError } from "./guard-webhook-url";
import { CONNECTION_HEADERS } from "./webhook-schemas";

export interface WebhookResponse {
  /** The HTTP status, or null when no response came (refused URL, connection error, timeout). */
  httpStatus: number | null;
  latencyMs: number;
  /** Why the attempt is not accepted; null for a 2xx. */
  error: string | null;
  /** A Retry-After header of the answer, as an absolute time (ms since the epoch). */
  retryAfterAt: number | null;
  /** The URL itself is refused by the guard: retrying cannot help until it is changed. */
  refused: boolean;
  /** Why it failed, in one word: the URL guard, no answer in time, no connection, or a non-2xx answer. */
  failure: "guard" | "timeout" | "network" | "status" | null;
  /** The start of the answer's body (up to `bodyBytes`, UTF-8), "" when none came. */
  body: string;
}

// The HTTP client is undici's (the engine of Node's own fetch), through its request API: a POST costs its client about
// half the CPU of node:http's (25–37 µs against 57–70 with keep-alive, 50 at a time to a local receiver), and the
// worker posts one for every status change. Connections are reused between deliveries to the same receiver (most
// accounts' events go to one host); one agent per guard setting, each resolving names through the URL guard.
const agents = new Map<boolean, Agent>();

function agentFor(allowPrivate: boolean): Agent {
  let agent = agents.get(allowPrivate);
  if (!agent) {
    // The connection's own timeout at the longest an attempt may take (WEBHOOK_TIMEOUT_SECONDS): the attempt's
    // timer ends it first, as "no answer within …" (undici's default would end a slow connect at 10 s).
    agent = new Agent({
      connect: { lookup: guardedLookup(allowPrivate) as unknown as LookupFunction, timeout: 60_000 },
    });
    agents.set(allowPrivate, agent);
  }
  return agent;
}

/**
 * Headers of the connection, which the client manages itself (undici refuses them): the form refuses them as a
 * customer header (webhook-schemas.ts), and one saved before that rule is left out of the POST.
 */
const LEFT_OUT = new Set(["connection", "transfer-encoding", ...CONNECTION_HEADERS]);
const MAX_ERROR_BODY = 200;

/** Retry-After in seconds or as an HTTP date, as an absolute time; null when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: number): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return now + Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? null : date;
}

/**
 * One POST of an event. Any 2xx within the timeout is accepted. Redirects are not followed (a 3xx is a failed
 * attempt): following one would let a receiver send the request, its signature and the account's header to
 * another address, and a webhook URL is expected to be the final one. The timeout covers the whole exchange.
 */
export function postWebhook(options: {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  allowPrivate: boolean;
  /** How much of the answer's body to keep in `body` (the error text of a refusal keeps 200 characters anyway). */
  bodyBytes?: number;
}): Promise<WebhookResponse> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const failed = (error: string, failure: "guard" | "timeout" | "network"): WebhookResponse => ({
    httpStatus: null,
    latencyMs: elapsed(),
    error,
    retryAfterAt: null,
    refused: failure === "guard",
    failure,
    body: "",
  });
  const keep = Math.max(options.bodyBytes ?? 0, MAX_ERROR_BODY * 4);
  let url: URL;
  try {
    url = parseWebhookUrl(options.url);
    checkLiteralHost(url, options.allowPrivate);
  } catch (error) {
    return Promise.resolve(failed((error as Error).message, error instanceof WebhookUrlError ? "guard" : "network"));
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(options.headers))
    if (!LEFT_OUT.has(name.toLowerCase())) headers[name] = value;
  headers["content-type"] = "application/json";
  headers["content-length"] = String(Buffer.byteLength(options.body));
  headers["user-agent"] = "Parley-Webhooks/1";
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: WebhookResponse) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const abort = new AbortController();
    const timer = setTimeout(() => {
      finish(failed(`no answer within ${options.timeoutMs / 1000} s`, "timeout"));
      abort.abort();
    }, options.timeoutMs);
    agentFor(options.allowPrivate)
      .request({
        origin: url.origin,
        path: url.pathname + url.search,
        method: "POST",
        headers,
        body: options.body,
        signal: abort.signal,
      })
      .then(
        (response) => {
          const status = response.statusCode;
          const chunks: Buffer[] = [];
          let kept = 0;
          // Read to the end (what is past `keep` is dropped), so that the connection serves the next POST.
          response.body.on("data", (chunk: Buffer) => {
            if (kept >= keep) return;
            chunks.push(chunk);
            kept += chunk.length;
          });
          response.body.on("error", (error: Error) => finish(failed(`response: ${error.message}`, "network")));
          response.body.on("end", () => {
            const ok = status >= 200 && status < 300;
            const header = (name: string) => {
              const value = response.headers[name];
              return Array.isArray(value) ? value[0] : value;
            };
            const location = header("location");
            // A cut in the middle of a UTF-8 sequence decodes to a replacement character, not an exception.
            const raw = Buffer.concat(chunks);
            const text = raw.subarray(0, keep).toString("utf8").trim().slice(0, MAX_ERROR_BODY);
            finish({
              httpStatus: status,
              latencyMs: elapsed(),
              error: ok
                ? null
                : status >= 300 && status < 400
                  ? `HTTP ${status}: redirects are not followed${location ? ` (to ${location})` : ""}`
                  : `HTTP ${status}${text ? `: ${text}` : ""}`,
              retryAfterAt: ok ? null : parseRetryAfter(header("retry-after"), Date.now()),
              refused: false,
              failure: ok ? null : "status",
              body: options.bodyBytes ? raw.subarray(0, options.bodyBytes).toString("utf8") : "",
            });
          });
        },
        (error: NodeJS.ErrnoException) =>
          finish(failed(error.message, error.code === "EWEBHOOKREFUSED" ? "guard" : "network")),
      );
  });
}
