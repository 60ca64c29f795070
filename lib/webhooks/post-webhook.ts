import http from "node:http";
import https from "node:https";
import { checkLiteralHost, guardedLookup, parseWebhookUrl, WebhookUrlError } from "./guard-webhook-url";

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

// Connections are reused between deliveries to the same receiver (most accounts' events go to one host).
const agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };
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
  const transport = url.protocol === "https:" ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: WebhookResponse) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const request = transport.request(
      url,
      {
        method: "POST",
        agent: url.protocol === "https:" ? agents.https : agents.http,
        lookup: guardedLookup(options.allowPrivate) as unknown as http.RequestOptions["lookup"],
        headers: {
          ...options.headers,
          "content-type": "application/json",
          "content-length": String(Buffer.byteLength(options.body)),
          "user-agent": "Parley-Webhooks/1",
        },
      },
      (response) => {
        const status = response.statusCode ?? 0;
        const chunks: Buffer[] = [];
        let kept = 0;
        response.on("data", (chunk: Buffer) => {
          if (kept >= keep) return;
          chunks.push(chunk);
          kept += chunk.length;
        });
        response.on("error", (error) => finish(failed(`response: ${error.message}`, "network")));
        response.on("end", () => {
          const ok = status >= 200 && status < 300;
          const retryAfter = response.headers["retry-after"];
          // A cut in the middle of a UTF-8 sequence decodes to a replacement character, not an exception.
          const raw = Buffer.concat(chunks);
          const text = raw.subarray(0, keep).toString("utf8").trim().slice(0, MAX_ERROR_BODY);
          finish({
            httpStatus: status,
            latencyMs: elapsed(),
            error: ok
              ? null
              : status >= 300 && status < 400
                ? `HTTP ${status}: redirects are not followed${response.headers.location ? ` (to ${response.headers.location})` : ""}`
                : `HTTP ${status}${text ? `: ${text}` : ""}`,
            retryAfterAt: ok
              ? null
              : parseRetryAfter(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter, Date.now()),
            refused: false,
            failure: ok ? null : "status",
            body: options.bodyBytes ? raw.subarray(0, options.bodyBytes).toString("utf8") : "",
          });
        });
      },
    );
    const timer = setTimeout(() => {
      finish(failed(`no answer within ${options.timeoutMs / 1000} s`, "timeout"));
      request.destroy();
    }, options.timeoutMs);
    request.on("error", (error: NodeJS.ErrnoException) =>
      finish(failed(error.message, error.code === "EWEBHOOKREFUSED" ? "guard" : "network")),
    );
    request.end(options.body);
  });
}
