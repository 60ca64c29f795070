import type { Server } from "socket.io";
import { readDb as db } from "../db/client";
import { logger } from "../log";
import { changesOfSdrs } from "../conversations/thread-messages";
import { messageChangeSchema, SOCKET_EVENTS, type MessageChange } from "./change-schema";
import { hotRead } from "../db/hot-read";
import { lastSdrQuery } from "./change-feed-queries";
import { visibilityFilter } from "./visible-changes";

// The server's change feed. The SDR table is the ordered log of message changes (every send writes accepted/queued
// or rejected, every delivery step one, every inbound message `received`), and its id is a monotonic position.
// Each server reads `Sdr where id > last` every REALTIME_POLL_MS (one indexed query; at once when told of new
// changes) and pushes the changed messages, in their current state, to its own browsers in their account's room
// (io.local: every server reads the log itself, so nothing needs relaying and a browser on server A sees what was
// written through server B, a worker or the CLI).
//
// On PostgreSQL an id is taken before its transaction commits, so a smaller id can appear after a larger one was
// read: ids skipped by a poll are looked for again for a while (GAP_MS), so a late commit is still pushed.

const BATCH = 2_000;
const GAP_MS = 10_000;
const MAX_GAPS = 5_000;

export function accountRoom(accountId: string): string {
  return `account:${accountId}`;
}

export function userRoom(userId: string): string {
  return `user:${userId}`;
}

export interface ChangeFeed {
  /** Polls as soon as possible (new changes were announced). */
  poke(): void;
  stop(): Promise<void>;
  /** The last position read. */
  position(): number;
}

export async function startChangeFeed(io: Server, pollMs: number): Promise<ChangeFeed> {
  const log = logger().child({ component: "change-feed" });
  let last = (await db().sdr.findFirst({ orderBy: { id: "desc" }, select: { id: true } }))?.id ?? 0;
  const gaps = new Map<number, number>();
  let running = false;
  let again = false;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;

  const hasAudience = (accountId: string) => io.of("/").adapter.rooms.has(accountRoom(accountId));

  async function pollOnce(): Promise<void> {
    // Nobody is watching on this server: skip to the end of the log instead of reading every change (a browser that
    // connects later asks for what it missed through catch-up, which reads the log itself).
    if (io.of("/").sockets.size === 0) {
      const [newest] = await hotRead<{ id: number | bigint | string | null }>(lastSdrQuery);
      if (newest?.id !== null && newest?.id !== undefined) last = Number(newest.id);
      gaps.clear();
      return;
    }
    const now = Date.now();
    for (const [id, until] of gaps) if (until < now) gaps.delete(id);
    const gapIds = [...gaps.keys()];
    const rows = await db().sdr.findMany({
      where: gapIds.length > 0 ? { OR: [{ id: { gt: last } }, { id: { in: gapIds } }] } : { id: { gt: last } },
      orderBy: { id: "asc" },
      take: BATCH,
      select: { id: true, messageId: true, accountId: true },
    });
    if (rows.length === 0) return;
    let expected = last + 1;
    for (const row of rows) {
      gaps.delete(row.id);
      if (row.id <= last) continue;
      for (let id = expected; id < row.id && gaps.size < MAX_GAPS; id++) gaps.set(id, now + GAP_MS);
      expected = row.id + 1;
      last = row.id;
    }
    // Only accounts with a browser on this server cost a read of their messages.
    const wanted = rows.filter((r) => hasAudience(r.accountId));
    if (wanted.length > 0) await emit(await changesOfSdrs(wanted));
    if (rows.length === BATCH) again = true;
  }

  async function emit(changes: MessageChange[]): Promise<void> {
    const byAccount = new Map<string, MessageChange[]>();
    for (const change of changes) {
      const parsed = messageChangeSchema.parse(change);
      byAccount.set(parsed.accountId, [...(byAccount.get(parsed.accountId) ?? []), parsed]);
    }
    for (const [accountId, list] of byAccount) {
      // An account that shows agents only theirs and the unassigned ones: each socket gets what its user may see.
      const visibleTo = await visibilityFilter(accountId, list);
      if (!visibleTo) {
        io.local.to(accountRoom(accountId)).emit(SOCKET_EVENTS.change, list);
        continue;
      }
      for (const socket of await io.local.in(accountRoom(accountId)).fetchSockets()) {
        const visible = await visibleTo((socket.data as { userId: string }).userId);
        if (visible.length > 0) socket.emit(SOCKET_EVENTS.change, visible);
      }
    }
  }

  async function tick(): Promise<void> {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = true;
    if (timer) clearTimeout(timer);
    timer = null;
    try {
      do {
        again = false;
        await pollOnce();
      } while (again && !stopped);
    } catch (error) {
      log.warn({ err: error }, "change feed poll failed; retrying");
    } finally {
      running = false;
      if (!stopped) {
        timer = setTimeout(() => void tick(), pollMs);
        timer.unref();
      }
    }
  }

  void tick();
  return {
    poke: () => void tick(),
    position: () => last,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
