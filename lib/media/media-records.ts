import { basename } from "node:path";
import { ApiError } from "../api/api-error";
import { db } from "../db/client";
import type { Attachment } from "./attachment";
import { mediaStore } from "./media-store";
import { mediaUrl, newMediaId, ownMediaId, storageKeyOf } from "./media-ids";

// The Media rows: Parley's copies of media, what messages carry, and what the portal and the API show of them.

export type MediaOrigin = "upload" | "fetched" | "fitted" | "inbound";

export interface StoredMedium {
  mediaId: string;
  url: string;
  contentType: string;
  size: number;
  fileName: string;
}

/** What the portal shows of one of a message's media (lib/media/attachment.ts). */
export type MediaAttachment = Attachment;

/** A file name as a sender gave it, safe to show and to put in Content-Disposition: its last part, printable, short. */
export function cleanFileName(value: string): string {
  const name = [...basename(value.replace(/\\/g, "/"))]
    .filter((c) => c.charCodeAt(0) > 0x1f && !(c.charCodeAt(0) >= 0x7f && c.charCodeAt(0) <= 0x9f) && c !== '"')
    .join("")
    .trim();
  // Cut by code points: half of a surrogate pair is not text (and breaks the Content-Disposition it goes into).
  return Array.from(name).slice(0, 200).join("");
}

/** Puts a file into the store and records it; the file itself stays where it is (the caller removes it). */
export async function storeMedium(input: {
  accountId: string;
  origin: MediaOrigin;
  path: string;
  size: number;
  contentType: string;
  fileName?: string;
  sourceUrl?: string | null;
  parentId?: string | null;
  fitKey?: string | null;
  width?: number | null;
  height?: number | null;
}): Promise<StoredMedium> {
  const id = newMediaId();
  // The bytes first: a row always names bytes that are there.
  await mediaStore().put(storageKeyOf(id), { path: input.path }, { contentType: input.contentType, size: input.size });
  const fileName = cleanFileName(input.fileName ?? "");
  const created = db().media.create({
    data: {
      id,
      accountId: input.accountId,
      origin: input.origin,
      state: "ready",
      contentType: input.contentType,
      size: input.size,
      fileName,
      storageKey: storageKeyOf(id),
      sourceUrl: input.sourceUrl ?? null,
      parentId: input.parentId ?? null,
      fitKey: input.fitKey ?? null,
      width: input.width ?? null,
      height: input.height ?? null,
    },
  });
  // A row that could not be written leaves no bytes behind.
  await created.catch(async (error: unknown) => {
    await mediaStore()
      .remove([storageKeyOf(id)])
      .catch(() => undefined);
    throw error;
  });
  return { mediaId: id, url: mediaUrl(id), contentType: input.contentType, size: input.size, fileName };
}

/**
 * A send's media that are Parley's own URLs must name media of the sending account (an id from another account,
 * or one removed by retention, is refused before anything is stored). Other URLs are fetched when the message is
 * prepared for its route.
 */
export async function checkOwnMedia(accountId: string, urls: readonly string[]): Promise<void> {
  const ids = urls.map((url) => ownMediaId(url));
  const wanted = ids.filter((id): id is string => id !== null);
  if (wanted.length === 0) return;
  const found = await db().media.findMany({
    where: { id: { in: wanted }, accountId, state: "ready" },
    select: { id: true },
  });
  const known = new Set(found.map((m) => m.id));
  // Named in a send: kept another day from now even if no message ends up carrying it (lib/media/prune-media.ts).
  if (known.size > 0)
    await db().media.updateMany({ where: { id: { in: [...known] } }, data: { updatedAt: new Date() } });
  const missing = ids.findIndex((id) => id !== null && !known.has(id));
  if (missing >= 0) {
    throw new ApiError("InvalidRequest", {
      detail: `'media[${missing}]' names no medium of this account (upload one with POST /v3/media)`,
      field: "media",
    });
  }
}

/** The media of messages, in order, as the portal shows them. */
export async function attachmentsOf(messageIds: readonly string[]): Promise<Map<string, MediaAttachment[]>> {
  const result = new Map<string, MediaAttachment[]>();
  if (messageIds.length === 0) return result;
  const rows = await db().messageMedia.findMany({
    where: { messageId: { in: [...messageIds] } },
    orderBy: [{ messageId: "asc" }, { position: "asc" }],
    select: {
      messageId: true,
      media: { select: { id: true, state: true, contentType: true, size: true, fileName: true } },
    },
  });
  for (const row of rows) {
    const m = row.media;
    const ready = m.state === "ready";
    const list = result.get(row.messageId) ?? [];
    list.push({
      url: mediaUrl(m.id),
      contentType: ready ? m.contentType : null,
      size: ready ? m.size : null,
      name: m.fileName || null,
      state: ready ? "ready" : m.state === "pending" ? "pending" : "unavailable",
    });
    result.set(row.messageId, list);
  }
  return result;
}

/** One medium as /media/{id} serves it, or null. */
export function findServedMedium(id: string) {
  return db().media.findUnique({
    where: { id },
    select: { id: true, state: true, contentType: true, size: true, fileName: true, storageKey: true },
  });
}
