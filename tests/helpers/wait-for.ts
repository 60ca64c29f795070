import { call, type TestAccount } from "./factories";
import type { RunningServer } from "./server";

export interface SdrRecord {
  delta: string;
  timestamp: string;
  status: string;
  statusDetails: string;
  segmentNumber?: number;
  referenceId?: string;
}

/** Polls the message's SDRs through the API until `done` holds (or fails with what was last seen). */
export async function waitForSdrs(
  server: RunningServer,
  account: TestAccount,
  messageId: string,
  done: (records: SdrRecord[]) => boolean,
  timeoutMs = 15_000,
): Promise<SdrRecord[]> {
  const deadline = Date.now() + timeoutMs;
  let records: SdrRecord[] = [];
  while (Date.now() < deadline) {
    const res = await call(server, "GET", `/v3/sdrs/${account.accountId}/${messageId}`, { headers: account.headers });
    records = res.json.data?.results ?? [];
    if (done(records)) return records;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(
    `SDRs of ${messageId} did not reach the expected state: ${JSON.stringify(records.map((r) => r.status))}`,
  );
}

export const statuses = (records: SdrRecord[]) => records.map((r) => r.status);
export const has = (status: string) => (records: SdrRecord[]) => records.some((r) => r.status === status);

/** The instant an SDR was written, from its listing timestamp ("2026-11-22 00:52:47.744 UTC"). */
export function sdrTime(record: SdrRecord): number {
  return Date.parse(record.timestamp.replace(" UTC", "Z").replace(" ", "T"));
}

/**
 * Polls `probe` every `intervalMs` until it gives something truthy, and returns that; past `timeoutMs`, fails naming
 * `what` (and what `context` adds, such as a server's output).
 */
export async function waitUntil<T>(
  what: string,
  probe: () => Promise<T | null | undefined | false> | T | null | undefined | false,
  timeoutMs: number,
  intervalMs = 100,
  context?: () => string,
): Promise<Exclude<T, null | undefined | false>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value as Exclude<T, null | undefined | false>;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${context ? `\n${context()}` : ""}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
