import { publicUrl } from "../env";
import { errorCodes, successCodes, type ErrorCode, type SuccessCode } from "./error-codes";
import type { ApiError } from "./api-error";
import { processSingleton } from "../process-singletons";

// The decision: every response is JSON with status, statusCode, statusMessage, statusUri and data where there is
// one; the HTTP status equals statusCode; data.apiVersion is "v3".
export interface Envelope {
  status: string;
  statusCode: number;
  statusMessage: string;
  statusUri: string;
  data?: Record<string, unknown>;
}

export function successEnvelope(code: SuccessCode, data: Record<string, unknown>): Envelope {
  const { statusCode, statusMessage } = successCodes[code];
  return { status: code, statusCode, statusMessage, statusUri: "", data: { ...data, apiVersion: "v3" } };
}

export function errorStatusUri(code: ErrorCode): string {
  return `${publicUrl()}/docs#error-${code}`;
}

export function errorEnvelope(error: ApiError, method: string): Envelope {
  const { statusCode, statusMessage } = errorCodes[error.code];
  const data: Record<string, unknown> = { ...error.data };
  if (error.detail) {
    data.error = error.code;
    data.error_message = error.detail;
  }
  if (error.field) data.field = error.field;
  const envelope: Envelope = {
    status: error.code,
    statusCode,
    statusMessage: statusMessage.replace("{method}", method.toUpperCase()),
    statusUri: errorStatusUri(error.code),
  };
  if (Object.keys(data).length > 0) envelope.data = { ...data, apiVersion: "v3" };
  return envelope;
}

// The text of each JSON response, kept beside it so that server.ts's fast path can write it without reading the
// Response's body stream back (about a tenth of a request's cost). Next's pipeline reads the body as usual.
export const responseText = processSingleton("responseText", () => new WeakMap<Response, string>());

/**
 * Marks the requests of server.ts's fast path (lib/http/node-bridge.ts): their JSON answers are written to the socket
 * as they are, so no web Response is built for them.
 */
export const writesPlainAnswers = Symbol.for("parley.writesPlainAnswers");

const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

/** The headers of a PlainAnswer: the part of a web Response's Headers the v3 wrappers use. */
class PlainHeaders {
  constructor(readonly values: Record<string, string>) {}
  get(name: string): string | null {
    return this.values[name.toLowerCase()] ?? null;
  }
  set(name: string, value: string): void {
    this.values[name.toLowerCase()] = value;
  }
}

/**
 * A JSON answer for the fast path: its status, headers and text. A web Response costs a send about 20 µs (its
 * body stream, header list and checks) only for sendWebResponse to take them apart again.
 */
export class PlainAnswer {
  readonly headers: PlainHeaders;
  constructor(
    readonly status: number,
    readonly text: string,
    headers: Record<string, string>,
  ) {
    this.headers = new PlainHeaders(headers);
  }
}

/**
 * The envelope as the answer to `req`: a PlainAnswer on the fast path, where only server.ts reads it (typed as a
 * Response for the handlers' signatures), a web Response everywhere else.
 */
export function jsonAnswer(req: Request, envelope: Envelope, headers: Record<string, string> = {}): Response {
  if ((req as { [writesPlainAnswers]?: boolean })[writesPlainAnswers] !== true) return jsonResponse(envelope, headers);
  const plain: Record<string, string> = { "content-type": JSON_CONTENT_TYPE };
  for (const name of Object.keys(headers)) plain[name.toLowerCase()] = headers[name]!;
  return new PlainAnswer(envelope.statusCode, JSON.stringify(envelope), plain) as unknown as Response;
}

export function jsonResponse(envelope: Envelope, headers: Record<string, string> = {}): Response {
  const text = JSON.stringify(envelope);
  const response = new Response(text, {
    status: envelope.statusCode,
    headers: { "content-type": JSON_CONTENT_TYPE, ...headers },
  });
  responseText.set(response, text);
  return response;
}
