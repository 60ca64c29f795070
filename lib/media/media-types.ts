import { formatBytes } from "./attachment";
import { fileTypeFromBuffer } from "file-type";

// What MMS can carry, judged from the bytes and never from a name or a declared Content-Type: a file called
// photo.jpg that holds HTML is HTML. Scripts, markup (HTML, SVG, XML), executables and archives are refused
// outright, and so is anything that cannot be recognised: Parley serves what it stores at /media/{id}, and a
// recipient's phone renders it.

export type MediaKind = "image" | "video" | "audio" | "file";

export interface SniffedType {
  contentType: string;
  kind: MediaKind;
  extension: string;
}

/** How many leading bytes the sniffer needs (file-type reads at most this many for the types MMS carries). */
export const SNIFF_BYTES = 4100;

/** Accepted types by the MIME type file-type names, with the type Parley stores and serves them as. */
const ACCEPTED: Record<string, SniffedType> = {
  "image/jpeg": { contentType: "image/jpeg", kind: "image", extension: "jpg" },
  "image/png": { contentType: "image/png", kind: "image", extension: "png" },
  // An animated PNG is a PNG any phone can show (its first frame at worst).
  "image/apng": { contentType: "image/png", kind: "image", extension: "png" },
  "image/gif": { contentType: "image/gif", kind: "image", extension: "gif" },
  "image/webp": { contentType: "image/webp", kind: "image", extension: "webp" },
  // HEIC/HEIF and AVIF, as phones take them; fitting turns them into JPEG when sharp can read them.
  "image/heic": { contentType: "image/heic", kind: "image", extension: "heic" },
  "image/heif": { contentType: "image/heif", kind: "image", extension: "heif" },
  "image/avif": { contentType: "image/avif", kind: "image", extension: "avif" },
  "video/mp4": { contentType: "video/mp4", kind: "video", extension: "mp4" },
  "video/x-m4v": { contentType: "video/mp4", kind: "video", extension: "mp4" },
  "video/3gpp": { contentType: "video/3gpp", kind: "video", extension: "3gp" },
  "video/quicktime": { contentType: "video/quicktime", kind: "video", extension: "mov" },
  "audio/mpeg": { contentType: "audio/mpeg", kind: "audio", extension: "mp3" },
  "audio/mp4": { contentType: "audio/mp4", kind: "audio", extension: "m4a" },
  "audio/x-m4a": { contentType: "audio/mp4", kind: "audio", extension: "m4a" },
  "audio/aac": { contentType: "audio/aac", kind: "audio", extension: "aac" },
  "audio/amr": { contentType: "audio/amr", kind: "audio", extension: "amr" },
  "audio/ogg": { contentType: "audio/ogg", kind: "audio", extension: "ogg" },
  "audio/ogg; codecs=opus": { contentType: "audio/ogg", kind: "audio", extension: "opus" },
  "audio/opus": { contentType: "audio/ogg", kind: "audio", extension: "opus" },
  "audio/wav": { contentType: "audio/wav", kind: "audio", extension: "wav" },
  "application/pdf": { contentType: "application/pdf", kind: "file", extension: "pdf" },
  "text/vcard": { contentType: "text/vcard", kind: "file", extension: "vcf" },
  "text/calendar": { contentType: "text/calendar", kind: "file", extension: "ics" },
};

/** The content types a fitted or stored medium may have (what ACCEPTED maps to). */
export const ACCEPTED_CONTENT_TYPES: ReadonlySet<string> = new Set(Object.values(ACCEPTED).map((t) => t.contentType));

const TEXT_DECODER = new TextDecoder("utf-8", { fatal: false });

/** The type of a text file file-type does not name: vCard and iCalendar accepted, markup named so it can be refused. */
function sniffText(head: Uint8Array): string | null {
  const text = TEXT_DECODER.decode(head.subarray(0, 1024))
    .replace(/^\uFEFF/, "")
    .trimStart();
  const upper = text.slice(0, 32).toUpperCase();
  if (upper.startsWith("BEGIN:VCARD")) return "text/vcard";
  if (upper.startsWith("BEGIN:VCALENDAR")) return "text/calendar";
  if (!text.startsWith("<")) return null;
  const lower = text.toLowerCase();
  if (lower.includes("<svg")) return "image/svg+xml";
  if (/^<(!doctype html|html|head|body|script|iframe|meta|title|div|p\b)/.test(lower)) return "text/html";
  if (lower.startsWith("<?xml")) return "application/xml";
  return "text/html";
}

/**
 * The real type of a medium from its first bytes (SNIFF_BYTES of them, fewer for a shorter file), or why MMS
 * cannot carry it, in words.
 */
export async function sniffMediaType(
  head: Uint8Array,
): Promise<{ ok: true; type: SniffedType } | { ok: false; reason: string }> {
  if (head.length === 0) return { ok: false, reason: "an empty file" };
  // Markup is looked at first: file-type calls an SVG with an XML declaration plain application/xml.
  const textual = sniffText(head);
  let mime = textual;
  if (!mime) {
    try {
      mime = (await fileTypeFromBuffer(head.subarray(0, SNIFF_BYTES)))?.mime ?? null;
    } catch {
      mime = null;
    }
  }
  if (!mime) return { ok: false, reason: "an unknown type, not one MMS can carry" };
  const accepted = ACCEPTED[mime];
  if (!accepted) return { ok: false, reason: `${mime} is not a type MMS can carry` };
  return { ok: true, type: { ...accepted } };
}

/** The kind of medium a content type stands for (its parameters ignored). */
export function mediaKindOf(contentType: string): MediaKind {
  const top = contentType.split(";")[0]!.trim().toLowerCase().split("/")[0];
  if (top === "image" || top === "video" || top === "audio") return top;
  return "file";
}

/** A size in words, as the limits are written ("600 KB", "7.4 MB"): the portal's own wording, so both say the same. */
export const describeBytes = formatBytes;
