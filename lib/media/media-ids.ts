import { randomInt } from "node:crypto";
import { publicUrl } from "../env";

// A medium's id is its address: /media/{id} answers without a session (carriers and webhook receivers fetch from
// it), so the id is the secret. 24 characters of 62 are 142 random bits.

const ID_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const MEDIA_ID = /^md_[A-Za-z0-9]{24}$/;

export function newMediaId(): string {
  let id = "md_";
  for (let i = 0; i < 24; i++) id += ID_LETTERS[randomInt(ID_LETTERS.length)];
  return id;
}

export function isMediaId(value: string): boolean {
  return MEDIA_ID.test(value);
}

/** The absolute address of a medium, as the API, webhooks and carriers are given it. */
export function mediaUrl(id: string): string {
  return `${publicUrl()}/media/${id}`;
}

/**
 * The id of one of Parley's own media named by a URL (this server's public address, /media/…), or null for any
 * other URL, which is fetched like any outside address.
 */
export function ownMediaId(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.origin !== new URL(publicUrl()).origin || !url.pathname.startsWith("/media/")) return null;
  // Anything under /media/ is Parley's to answer for: a malformed id names no medium (refused, never fetched).
  return url.pathname.slice("/media/".length);
}

/** Where a medium's bytes are kept in the store: its id's random part (so the store's folders spread evenly). */
export function storageKeyOf(id: string): string {
  return id.slice("md_".length);
}
