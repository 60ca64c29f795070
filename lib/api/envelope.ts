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

export function jsonResponse(envelope: Envelope, headers: Record<string, string> = {}): Response {
  const text = JSON.stringify(envelope);
  const response = new Response(text, {
    status: envelope.statusCode,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
  responseText.set(response, text);
  return response;
}
