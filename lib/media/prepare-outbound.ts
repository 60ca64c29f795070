import { randomInt } from "node:crypto";
import { createWriteStream } from "node:fs";
import { pipeline } from "node:stream/promises";
import { db } from "../db/client";
import { readTransaction } from "../db/steps";
import { pendingOutboundMediaSteps } from "./outbound-media-queries";
import { logger } from "../log";
import { QUEUED_STATUSES } from "../messaging/message-status";
import { recordTransitionsInTx, sdrRow } from "../messaging/record-transitions";
import { isDuplicateKeyError } from "../messaging/idempotency";
import { fitMedia, overMessageLimit } from "./fit-media";
import { ownMediaId, mediaUrl, storageKeyOf } from "./media-ids";
import { storeMedium } from "./media-records";
import { mediaStore } from "./media-store";
import { fetchToTemp, mediaTempDir, mediaTempPath, removeTemp } from "./media-temp";
import { describeBytes, mediaKindOf, SNIFF_BYTES, sniffMediaType } from "./media-types";
import { routeMediaOf, type RouteMedia } from "./route-limits";

// A scheduled MMS has its media ready before its time, so that it leaves on time.
const PREPARED_STATUSES = ["held", "scheduled", ...QUEUED_STATUSES];

// An outbound MMS is stored with the URLs its send named and mediaState "pending"; here each medium is fetched once
// (a send to many destinations shares the fetch: messages are prepared in groups of the same media and route),
// its real type read from its bytes, fitted to the route's limits (fit-media.ts) and kept; the messages then carry
// Parley's URLs of the fitted copies and join their numbers' queues. A medium that cannot be fetched or fitted fails
// its messages with a `failed` SDR that says which and why; a fetch that failed for the server's sake (5xx, no
// answer) is tried again a few times first.

const BATCH = 200;
/** A medium fetched for a send is used again by sends of the same URL this soon after (a campaign sent in parts). */
const REUSE_FETCH_MS = 10 * 60_000;
/** Waits before trying a temporary failure again; after the last, the message fails. */
const RETRY_DELAYS_MS = [5_000, 30_000, 120_000];
/** How long a worker's claim on messages being prepared holds (a worker that died lets them go after it). */
const CLAIM_MS = 5 * 60_000;
/** Groups (different media or routes) prepared side by side: one slow URL holds back no more than itself. */
const GROUPS_AT_ONCE = 3;

interface PendingMessage {
  id: string;
  accountId: string;
  fromNumber: string;
  media: string;
  referenceId: string | null;
  attempts: number;
}

type Prepared =
  { ok: true; media: { mediaId: string; sourceUrl: string }[] } | { ok: false; reason: string; temporary: boolean };

class MediumProblem extends Error {
  constructor(
    message: string,
    readonly temporary = false,
  ) {
    super(message);
  }
}

interface SourceMedium {
  id: string;
  contentType: string;
  size: number;
  fileName: string;
  storageKey: string;
  /** The fetched file, when it was fetched just now (saves reading it back from the store). */
  path: string | null;
}

async function fetchSource(accountId: string, url: string, position: number): Promise<SourceMedium> {
  const fetched = await fetchToTemp(url);
  if (!fetched.ok) throw new MediumProblem(`media ${position}: ${fetched.reason}`, fetched.temporary);
  try {
    const sniffed = await sniffMediaType(fetched.head.subarray(0, SNIFF_BYTES));
    if (!sniffed.ok) throw new MediumProblem(`media ${position}: ${sniffed.reason}`);
    const stored = await storeMedium({
      accountId,
      origin: "fetched",
      path: fetched.path,
      size: fetched.size,
      contentType: sniffed.type.contentType,
      fileName: fetched.fileName ?? "",
      sourceUrl: url,
    });
    return {
      id: stored.mediaId,
      contentType: stored.contentType,
      size: stored.size,
      fileName: stored.fileName,
      storageKey: storageKeyOf(stored.mediaId),
      path: fetched.path,
    };
  } catch (error) {
    await removeTemp(fetched.path);
    throw error;
  }
}

const sourceSelect = { id: true, contentType: true, size: true, fileName: true, storageKey: true } as const;

/** The medium a send's URL names: one of the account's own, one fetched for an earlier send just now, or fetched. */
async function sourceOf(accountId: string, url: string, position: number): Promise<SourceMedium> {
  const own = ownMediaId(url);
  if (own) {
    const medium = await db().media.findFirst({ where: { id: own, accountId, state: "ready" }, select: sourceSelect });
    if (!medium) throw new MediumProblem(`media ${position}: the medium is no longer there`);
    return { ...medium, path: null };
  }
  const recent = await db().media.findFirst({
    where: {
      accountId,
      sourceUrl: url,
      origin: "fetched",
      state: "ready",
      createdAt: { gte: new Date(Date.now() - REUSE_FETCH_MS) },
    },
    orderBy: { createdAt: "desc" },
    select: sourceSelect,
  });
  return recent ? { ...recent, path: null } : fetchSource(accountId, url, position);
}

/** The copy of `source` fitted to the route: an earlier one, or made now (the source itself when it already fits). */
async function fittedOf(accountId: string, source: SourceMedium, route: RouteMedia, position: number) {
  const earlier = await db().media.findFirst({
    where: { parentId: source.id, fitKey: route.fitKey, state: "ready" },
    select: { id: true, size: true },
  });
  if (earlier) return earlier;
  const type = { contentType: source.contentType, kind: mediaKindOf(source.contentType), extension: "" };
  // Video, audio and files are never re-encoded: their size alone decides, without reading them back.
  if (type.kind !== "image") {
    const over = overMessageLimit(source.size, source.contentType, route.limits);
    if (over) throw new MediumProblem(`media ${position}: ${over}`);
    return { id: source.id, size: source.size };
  }
  let path = source.path;
  let copied: string | null = null;
  try {
    if (!path) {
      copied = mediaTempPath();
      await pipeline(await mediaStore().open(source.storageKey), createWriteStream(copied));
      path = copied;
    }
    const fitted = await fitMedia({ path, type, size: source.size, limits: route.limits, tempDir: mediaTempDir() });
    if (!fitted.ok) throw new MediumProblem(`media ${position}: ${fitted.reason}`);
    if (!fitted.changed) return { id: source.id, size: source.size };
    try {
      const stored = await storeMedium({
        accountId,
        origin: "fitted",
        path: fitted.path,
        size: fitted.size,
        contentType: fitted.contentType,
        fileName: source.fileName,
        parentId: source.id,
        fitKey: route.fitKey,
        width: fitted.width,
        height: fitted.height,
      });
      return { id: stored.mediaId, size: stored.size };
    } finally {
      await removeTemp(fitted.path);
    }
  } finally {
    await removeTemp(copied);
  }
}

/** Fetches and fits one group's media (the same URLs for the same route), in order. */
async function prepareGroup(accountId: string, urls: string[], route: RouteMedia): Promise<Prepared> {
  const media: { mediaId: string; sourceUrl: string }[] = [];
  let total = 0;
  try {
    for (const [index, url] of urls.entries()) {
      const source = await sourceOf(accountId, url, index + 1);
      try {
        const fitted = await fittedOf(accountId, source, route, index + 1);
        media.push({ mediaId: fitted.id, sourceUrl: url });
        total += fitted.size;
      } finally {
        await removeTemp(source.path);
      }
    }
  } catch (error) {
    if (!(error instanceof MediumProblem)) throw error;
    return { ok: false, reason: error.message, temporary: error.temporary };
  }
  if (total > route.limits.messageMaxBytes) {
    const reason = `media: ${describeBytes(total)} together, over the ${describeBytes(route.limits.messageMaxBytes)} limit`;
    return { ok: false, reason, temporary: false };
  }
  return { ok: true, media };
}

/** Records a group's outcome on its messages (only those still queued and pending). */
async function recordGroup(messages: PendingMessage[], prepared: Prepared): Promise<void> {
  const at = new Date();
  const ids = messages.map((m) => m.id);
  // Only messages still waiting for their media: one prepared meanwhile (by another worker) is left as it is.
  const onlyFrom = { status: PREPARED_STATUSES, mediaState: "pending" };
  const later = new Set<() => void>();
  if (!prepared.ok && prepared.temporary && (messages[0]?.attempts ?? 0) < RETRY_DELAYS_MS.length) {
    const wait = RETRY_DELAYS_MS[messages[0]?.attempts ?? 0]!;
    await db().message.updateMany({
      where: { id: { in: ids }, mediaState: "pending" },
      data: { attempts: { increment: 1 }, nextAttemptAt: new Date(at.getTime() + wait) },
    });
    return;
  }
  await db().$transaction(async (tx) => {
    if (prepared.ok) {
      // The rows first: a second worker preparing the same messages meets them and gives up (a duplicate key).
      await tx.messageMedia.createMany({
        data: ids.flatMap((messageId) =>
          prepared.media.map((m, position) => ({ messageId, position, mediaId: m.mediaId, sourceUrl: m.sourceUrl })),
        ),
      });
      const media = JSON.stringify(prepared.media.map((m) => mediaUrl(m.mediaId)));
      await recordTransitionsInTx(
        tx,
        { changes: [{ ids, set: { media, mediaState: "", nextAttemptAt: null, attempts: 0 }, onlyFrom }], at },
        later,
      );
    } else {
      const sdrs = messages.map((m) =>
        sdrRow(m.id, m.accountId, "failed", at.getTime(), {
          statusDetails: prepared.reason,
          referenceId: m.referenceId,
        }),
      );
      await recordTransitionsInTx(
        tx,
        { changes: [{ ids, set: { status: "failed", mediaState: "", nextAttemptAt: null }, onlyFrom }], sdrs, at },
        later,
      );
    }
  });
  for (const run of later) run();
}

/**
 * Claims a group's messages (their nextAttemptAt becomes this worker's lease, so that two workers never fetch and
 * fit the same media at once), prepares their media and records the outcome.
 */
async function prepareClaimed(route: RouteMedia, group: PendingMessage[], now: Date): Promise<void> {
  const lease = new Date(now.getTime() + CLAIM_MS + randomInt(1000));
  const ids = group.map((m) => m.id);
  await db().message.updateMany({
    where: { id: { in: ids }, mediaState: "pending", OR: [{ nextAttemptAt: null }, { nextAttemptAt: { lte: now } }] },
    data: { nextAttemptAt: lease },
  });
  const claimed = new Set(
    (
      await db().message.findMany({
        where: { id: { in: ids }, mediaState: "pending", nextAttemptAt: lease },
        select: { id: true },
      })
    ).map((m) => m.id),
  );
  const messages = group.filter((m) => claimed.has(m.id));
  if (messages.length === 0) return;
  const first = messages[0]!;
  // Anything else that fails (the media store out of reach, a disk full) is tried again like a server's 5xx: one
  // group's trouble must not hold the MMS behind it, nor be tried again at every pass.
  const prepared = await prepareGroup(first.accountId, JSON.parse(first.media) as string[], route).catch(
    (error: unknown): Prepared => {
      logger().warn({ err: error, accountId: first.accountId }, "MMS media could not be prepared");
      return { ok: false, reason: `media could not be prepared (${(error as Error).message})`, temporary: true };
    },
  );
  await recordGroup(messages, prepared).catch((error: unknown) => {
    if (isDuplicateKeyError(error)) return; // another worker recorded them first
    throw error;
  });
  if (!prepared.ok) {
    logger().info(
      { accountId: first.accountId, messages: messages.length, reason: prepared.reason },
      "MMS media refused",
    );
  }
}

/** One pass over the MMS waiting for their media; returns how many messages it settled or put off. */
export async function prepareOutboundMedia(now = new Date()): Promise<number> {
  const pending: PendingMessage[] = (
    await readTransaction(() => pendingOutboundMediaSteps(now, PREPARED_STATUSES, BATCH))
  ).map((m) => ({ ...m, attempts: Number(m.attempts) }));
  if (pending.length === 0) return 0;
  const routes = await routeMediaOf(pending.map((m) => m.fromNumber));
  const groups = new Map<string, { route: RouteMedia; messages: PendingMessage[] }>();
  for (const message of pending) {
    const route = routes.get(message.fromNumber)!;
    const key = `${message.accountId}\n${route.fitKey}\n${message.attempts}\n${message.media}`;
    const group = groups.get(key) ?? { route, messages: [] };
    group.messages.push(message);
    groups.set(key, group);
  }
  const work = [...groups.values()];
  for (let i = 0; i < work.length; i += GROUPS_AT_ONCE) {
    await Promise.all(
      work.slice(i, i + GROUPS_AT_ONCE).map(({ route, messages }) => prepareClaimed(route, messages, now)),
    );
  }
  return pending.length;
}
