import type { SdrRow } from "../db/insert-rows";

/** An SDR row as the worker writes them (timestamps are the worker clock's, so injected clocks show in tests). */
export function sdr(
  messageId: string,
  accountId: string,
  status: string,
  at: number,
  extra: { statusDetails?: string; segmentNumber?: number; referenceId?: string | null } = {},
): SdrRow & { createdAt: Date } {
  return {
    messageId,
    accountId,
    status,
    statusDetails: extra.statusDetails ?? "",
    segmentNumber: extra.segmentNumber ?? null,
    referenceId: extra.referenceId ?? null,
    createdAt: new Date(at),
  };
}
