import { checkIdempotency, idempotencyKeyFrom, isDuplicateKeyError } from "./idempotency";
import type { SendResult } from "./message-serializers";
import { parseSendRequest } from "./send-schema";
import { sendMessages } from "./send-message";
import { assertSenderAccount, type Sender } from "./sender";

/**
 * A send with the optional Idempotency-Key: a repeat returns the first answer and sends nothing. `answer` is what
 * the caller makes of the result (the route: its envelope); it is stored with the messages and returned for the
 * first request and every repeat alike.
 */
export async function sendWithIdempotency<A>(input: {
  sender: Sender;
  raw: unknown;
  requestId: string;
  headers: Headers;
  answer: (result: SendResult) => A;
}): Promise<A> {
  const { sender, requestId, answer } = input;
  const request = parseSendRequest(input.raw);
  const key = idempotencyKeyFrom(input.headers);
  if (key === null) return answer(await sendMessages({ sender, request, requestId }));
  assertSenderAccount(sender, request.accountId);
  const first = await checkIdempotency(request.accountId, key, input.raw, answer);
  if ("replay" in first) return first.replay;
  try {
    return answer(await sendMessages({ sender, request, requestId, idempotency: first.claim }));
  } catch (error) {
    // A concurrent request with the same key committed first: answer as it did (or 409 for another body).
    if (!isDuplicateKeyError(error)) throw error;
    const again = await checkIdempotency(request.accountId, key, input.raw, answer);
    if ("replay" in again) return again.replay;
    throw error;
  }
}
