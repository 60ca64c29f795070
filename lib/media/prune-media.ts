import { logger } from "../log";
import { pruneInBatches, type PruneControl, type PruneRun } from "../retention/prune-in-batches";
import { mediaStore } from "./media-store";

// Media go with their messages. A medium no message carries (its messages were removed by retention, an upload never
// sent, a copy a second worker made in a race) is kept UNUSED_GRACE_MS after it was last named in a send (its
// updatedAt: a send naming an upload touches it), then its row and its bytes are removed. An original whose fitted
// copy a message carries stays as long as the copy does (it is what the copy is reused from, and what was uploaded).

export const UNUSED_GRACE_MS = 24 * 3600_000;

/** Removes the media no message carries that are older than `before`, a batch at a time. */
export async function pruneMedia(before: Date, control: PruneControl = {}): Promise<PruneRun> {
  const size = control.batchSize ?? 500;
  return pruneInBatches(async (tx) => {
    const candidates = await tx.media.findMany({
      where: { updatedAt: { lt: before }, messages: { none: {} } },
      select: { id: true, storageKey: true },
      orderBy: { updatedAt: "asc" },
      take: size,
    });
    if (candidates.length === 0) return { deleted: 0, more: false };
    const parents = await tx.media.findMany({
      where: { parentId: { in: candidates.map((m) => m.id) }, messages: { some: {} } },
      select: { parentId: true },
    });
    const kept = new Set(parents.map((p) => p.parentId));
    const unused = candidates.filter((m) => !kept.has(m.id));
    if (unused.length === 0) return { deleted: 0, more: candidates.length === size };
    const { count } = await tx.media.deleteMany({
      where: { id: { in: unused.map((m) => m.id) }, messages: { none: {} } },
    });
    // The bytes after the rows: a row never names bytes that are gone (bytes left by a failure are only space).
    const keys = unused.map((m) => m.storageKey).filter((k) => k !== "");
    await mediaStore()
      .remove(keys)
      .catch((error: unknown) => logger().warn({ err: error, media: keys.length }, "media bytes not removed"));
    return { deleted: count, more: candidates.length === size };
  }, control);
}
