import type { ApiPrincipal } from "../api/authenticate";
import type { Envelope } from "../api/envelope";
import { checkIdempotency, idempotencyKeyFrom, isDuplicateKeyError } from "./idempotency";
import { parseSendRequest } from "./send-schema";
import { sendMessages } from "./send-message";
import { assertAccount } from "../api/authenticate";

/** POST /v3/messages with the optional Idempotency-Key: a repeat returns the first answer and sends nothing. */
export async function sendWithIdempotency(input: {
  principal: ApiPrincipal;
  raw: unknown;
  requestId: string;
  headers: Headers;
}): Promise<Envelope> {
  const request = parseSendRequest(input.raw);
  const key = idempotencyKeyFrom(input.headers);
  if (key === null) return sendMessages({ principal: input.principal, request, requestId: input.requestId });
  assertAccount(input.principal, request.accountId);
  const first = await checkIdempotency(request.accountId, key, input.raw);
  if ("replay" in first) return first.replay;
  try {
    return await sendMessages({
      principal: input.principal,
      request,
      requestId: input.requestId,
      idempotency: first.claim,
    });
  } catch (error) {
    // A concurrent request with the same key committed first: answer as it did (or 409 for another body).
    if (!isDuplicateKeyError(error)) throw error;
    const again = await checkIdempotency(request.accountId, key, input.raw);
    if ("replay" in again) return again.replay;
    throw error;
  }
}
