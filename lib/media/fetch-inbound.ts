import { db } from "../db/client";
import { readTransaction } from "../db/steps";
import { env } from "../env";
import { logger } from "../log";
import { loadOpenConnection } from "../carriers/connections/manage-connections";
import { isHttpProvider, providerFor } from "../carriers/http/providers";
import { cleanFileName } from "./media-records";
import { storageKeyOf } from "./media-ids";
import { mediaStore } from "./media-store";
import { fetchToTemp, removeTemp } from "./media-temp";
import { anyPendingInboundMediaSteps } from "./inbound-media-queries";
import { SNIFF_BYTES, sniffMediaType } from "./media-types";

// The media of inbound messages, fetched from the carrier into the store right after the message is kept
// (fetchInboundMediaSoon, in the process that received it) and again by the worker's media loop until they are
// there: a fetch that fails for the provider's sake is tried again (after 5 s, 30 s, 2 min, 10 min, 30 min), then
// the medium is `failed` and the portal shows "attachment unavailable"; the message itself is never lost for it.
// A provider whose media URLs need its credentials (Twilio, Bandwidth) is asked for them per URL, and gives them
// only for its own API host.

const RETRY_DELAYS_MS = [5_000, 30_000, 120_000, 600_000, 1_800_000];
const BATCH = 20;
const AT_ONCE = 4;

interface PendingMedium {
  id: string;
  accountId: string;
  sourceUrl: string | null;
  carrierId: string | null;
  attempts: number;
}

async function credentialsFor(
  carrierId: string | null,
): Promise<((url: URL) => Record<string, string> | undefined) | undefined> {
  if (!carrierId) return undefined;
  const connection = await loadOpenConnection(carrierId).catch(() => null);
  if (!connection || !isHttpProvider(connection.type)) return undefined;
  const provider = providerFor(connection);
  return provider.mediaHeaders ? (url) => provider.mediaHeaders!(url) : undefined;
}

async function settle(medium: PendingMedium, outcome: { ok: false; reason: string; temporary: boolean }) {
  const retry = outcome.temporary && medium.attempts < RETRY_DELAYS_MS.length;
  await db().media.update({
    where: { id: medium.id },
    data: retry
      ? {
          stateDetail: outcome.reason,
          leaseUntil: null,
          nextAttemptAt: new Date(Date.now() + RETRY_DELAYS_MS[medium.attempts]!),
        }
      : { state: "failed", stateDetail: outcome.reason, leaseUntil: null, nextAttemptAt: null },
  });
  logger().warn(
    { mediaId: medium.id, accountId: medium.accountId, attempts: medium.attempts + 1, reason: outcome.reason, retry },
    retry ? "inbound medium not fetched; trying again" : "inbound medium unavailable",
  );
}

async function fetchOne(medium: PendingMedium): Promise<void> {
  if (!medium.sourceUrl) return settle(medium, { ok: false, reason: "no address to fetch it from", temporary: false });
  const fetched = await fetchToTemp(medium.sourceUrl, await credentialsFor(medium.carrierId));
  if (!fetched.ok) return settle(medium, fetched);
  try {
    const sniffed = await sniffMediaType(fetched.head.subarray(0, SNIFF_BYTES));
    if (!sniffed.ok) return await settle(medium, { ok: false, reason: sniffed.reason, temporary: false });
    const { contentType } = sniffed.type;
    await mediaStore().put(storageKeyOf(medium.id), { path: fetched.path }, { contentType, size: fetched.size });
    await db().media.update({
      where: { id: medium.id },
      data: {
        state: "ready",
        stateDetail: "",
        contentType,
        size: fetched.size,
        fileName: cleanFileName(fetched.fileName ?? ""),
        storageKey: storageKeyOf(medium.id),
        leaseUntil: null,
        nextAttemptAt: null,
      },
    });
  } finally {
    await removeTemp(fetched.path);
  }
}

/** Claims the media due for a fetch (a lease, so two processes never fetch the same one at once) and fetches them. */
export async function fetchPendingInbound(now = new Date()): Promise<number> {
  if (!(await readTransaction(() => anyPendingInboundMediaSteps(now)))) return 0;
  const due = await db().media.findMany({
    where: {
      state: "pending",
      AND: [
        { OR: [{ nextAttemptAt: null }, { nextAttemptAt: { lte: now } }] },
        { OR: [{ leaseUntil: null }, { leaseUntil: { lt: now } }] },
      ],
    },
    orderBy: { createdAt: "asc" },
    take: BATCH,
    select: { id: true, accountId: true, sourceUrl: true, carrierId: true, attempts: true, leaseUntil: true },
  });
  const leaseUntil = new Date(now.getTime() + 2 * env().MEDIA_FETCH_TIMEOUT_SECONDS * 1000 + 10_000);
  const claimed: PendingMedium[] = [];
  for (const medium of due) {
    const { count } = await db().media.updateMany({
      where: { id: medium.id, state: "pending", leaseUntil: medium.leaseUntil },
      data: { leaseUntil, attempts: { increment: 1 } },
    });
    if (count === 1) claimed.push(medium);
  }
  for (let i = 0; i < claimed.length; i += AT_ONCE) {
    await Promise.all(
      claimed
        .slice(i, i + AT_ONCE)
        .map((medium) =>
          fetchOne(medium).catch((error: unknown) =>
            settle(medium, { ok: false, reason: (error as Error).message, temporary: true }).catch(() => undefined),
          ),
        ),
    );
  }
  return claimed.length;
}

let running: Promise<void> | null = null;
let again = false;

/** Fetches the pending inbound media in this process now (once at a time; asked again meanwhile, once more after). */
export function fetchInboundMediaSoon(): void {
  if (running) {
    again = true;
    return;
  }
  running = (async () => {
    do {
      again = false;
      await fetchPendingInbound();
    } while (again);
  })()
    .catch((error: unknown) => logger().warn({ err: error }, "inbound media fetch pass failed"))
    .finally(() => {
      running = null;
    });
}

/** Until this process's fetches asked for by fetchInboundMediaSoon are done (a short-lived process waits for them). */
export async function inboundMediaFetched(): Promise<void> {
  while (running) await running;
}
