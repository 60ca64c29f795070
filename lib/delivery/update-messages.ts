import { binder, chunks, placeholderList, type ColumnKind } from "../db/insert-rows";
import { execute, type Steps } from "../db/steps";

/** A change the delivery code makes to messages: a recorded answer's, or a message settled by its receipts. */
export interface MessageChange {
  partsSubmitted?: number;
  attempts?: number;
  nextAttemptAt?: Date | null;
  status?: string;
  expiresAt?: Date;
}

const CHANGE_KINDS: Record<keyof MessageChange, ColumnKind> = {
  partsSubmitted: "int",
  attempts: "int",
  nextAttemptAt: "date",
  status: "text",
  expiresAt: "date",
};

/** One change to many messages (and their updatedAt). */
export function* updateMessages(data: MessageChange, ids: string[], now: Date): Steps<void> {
  for (const chunk of chunks(ids)) {
    const values: unknown[] = [];
    const bind = binder(values);
    const set = (Object.keys(data) as (keyof MessageChange)[]).map(
      (column) => `"${column}" = ${bind(CHANGE_KINDS[column], data[column])}`,
    );
    set.push(`"updatedAt" = ${bind("date", now)}`);
    const list = placeholderList(values, chunk);
    yield* execute(`UPDATE "Message" SET ${set.join(", ")} WHERE "id" IN (${list})`, values);
  }
}
