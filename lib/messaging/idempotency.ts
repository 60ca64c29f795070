import { createHash } from "node:crypto";
import { ApiError } from "../api/api-error";
import { db } from "../db/client";
import { uuidv4 } from "../db/ids";
import type { Prisma } from "../db/generated/sqlite/client";

// The decision: the same Idempotency-Key with the same body within 24 hours returns the first response again
// and sends nothing; with another body it is 409 IdempotencyConflict. What is stored is the caller's answer (the
// route's envelope), committed with the messages; a send's answer is always a success (200): refusals are thrown
// before anything is stored.
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
const MAX_KEY_LENGTH = 255;

export interface IdempotencyClaim<R> {
  key: string;
  requestHash: string;
  /** The row to commit with the messages (the answer to `result`), so the record exists exactly when they do. */
  record(result: R): Prisma.IdempotencyRecordCreateManyInput;
}

const SUCCESS_STATUS = 200;

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.keys(value as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

export function idempotencyKeyFrom(headers: Headers): string | null {
  const key = headers.get("idempotency-key");
  if (key === null) return null;
  if (key.length === 0 || key.length > MAX_KEY_LENGTH) {
    throw new ApiError("InvalidRequest", {
      detail: `'Idempotency-Key' must be 1 to ${MAX_KEY_LENGTH} characters`,
      field: "Idempotency-Key",
    });
  }
  return key;
}

/**
 * The stored first answer for this key, or a claim to record this request's answer with its messages: `answer` turns
 * the result into what the caller answers, so a repeat gets exactly that again.
 */
export async function checkIdempotency<R, A>(
  accountId: string,
  key: string,
  body: unknown,
  answer: (result: R) => A,
): Promise<{ replay: A } | { claim: IdempotencyClaim<R> }> {
  const requestHash = createHash("sha256").update(canonical(body)).digest("hex");
  const existing = await db().idempotencyRecord.findUnique({ where: { accountId_key: { accountId, key } } });
  if (existing && Date.now() - existing.createdAt.getTime() < IDEMPOTENCY_WINDOW_MS) {
    if (existing.requestHash !== requestHash) throw new ApiError("IdempotencyConflict");
    return { replay: JSON.parse(existing.responseBody) as A };
  }
  if (existing)
    await db()
      .idempotencyRecord.delete({ where: { id: existing.id } })
      .catch(() => undefined);
  return {
    claim: {
      key,
      requestHash,
      record: (result) => ({
        id: uuidv4(),
        accountId,
        key,
        requestHash,
        statusCode: SUCCESS_STATUS,
        responseBody: JSON.stringify(answer(result)),
        createdAt: new Date(),
      }),
    },
  };
}

/** True when a commit failed because a concurrent request with the same key committed first. */
export function isDuplicateKeyError(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { code, meta, message } = error as {
    code?: string;
    meta?: { driverAdapterError?: { cause?: { kind?: string; originalCode?: string } } };
    message?: string;
  };
  // Prisma's unique-constraint code; SQLite's from the send writer; PostgreSQL's unique_violation (23505) from the
  // send writer's own pool (lib/db/pg-hot-path.ts), or through a raw Prisma query, which Prisma reports as P2010
  // with the driver's error in `meta`.
  if (code === "P2002" || code === "SQLITE_CONSTRAINT_UNIQUE" || code === "23505") return true;
  const cause = meta?.driverAdapterError?.cause;
  return (
    code === "P2010" &&
    (cause?.kind === "UniqueConstraintViolation" || cause?.originalCode === "23505" || /23505/.test(message ?? ""))
  );
}
