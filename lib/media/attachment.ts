import { z } from "zod";

// A message's media as the portal shows them: Parley's own copy of each medium (its /media/{id} address, type, size,
// name and whether it can be shown yet). Shared by the server's serializers and the browser (no server imports).

export interface Attachment {
  url: string;
  contentType: string | null;
  size: number | null;
  name: string | null;
  /** pending: an inbound medium not fetched yet, or an outbound one not fitted yet; unavailable: it never will be. */
  state: "ready" | "pending" | "unavailable";
}

export const attachmentSchema = z.object({
  url: z.string(),
  contentType: z.string().nullable(),
  size: z.number().int().min(0).nullable(),
  name: z.string().nullable(),
  state: z.enum(["ready", "pending", "unavailable"]),
}) satisfies z.ZodType<Attachment>;

/** How the portal shows a medium: a picture, a player, or a chip to download it. */
export type AttachmentKind = "image" | "video" | "audio" | "file";

/** Most media one MMS carries: what the send API and the carriers accept. */
export const MAX_ATTACHMENTS = 10;

/** The route's limits the composer measures against; the server's settings (MEDIA_*_MAX_BYTES) say the real ones. */
export interface MediaLimits {
  /** The most one upload may weigh (MEDIA_MAX_BYTES). */
  uploadMaxBytes: number;
  /** An image is made smaller than this when sent (MEDIA_IMAGE_MAX_BYTES). */
  imageMaxBytes: number;
  /** The media of one message together (MEDIA_MESSAGE_MAX_BYTES). */
  messageMaxBytes: number;
}

/** The settings' defaults, for a page that does not pass the server's own. */
export const DEFAULT_MEDIA_LIMITS: MediaLimits = {
  uploadMaxBytes: 25 * 1024 * 1024,
  imageMaxBytes: 600 * 1024,
  messageMaxBytes: 5 * 1024 * 1024,
};

/**
 * What the upload's file picker offers: the types an MMS can carry (Parley sniffs the real type from the bytes and
 * refuses anything else, whatever the picker let through).
 */
export const ACCEPTED_UPLOAD_TYPES = [
  "image/jpeg",
  "image/png",
  "image/gif",
  "image/webp",
  "image/heic",
  "image/heif",
  "video/mp4",
  "video/3gpp",
  "video/quicktime",
  "audio/mpeg",
  "audio/mp4",
  "audio/aac",
  "audio/amr",
  "audio/ogg",
  "audio/wav",
  "application/pdf",
  "text/vcard",
  ".vcf",
  "text/calendar",
  ".ics",
].join(",");

/** Images every browser shows inline; HEIC and the rest are offered as files. */
const INLINE_IMAGES = new Set(["image/jpeg", "image/png", "image/gif", "image/webp"]);

/** The bare type, lower case, without parameters: "image/jpeg" of "Image/JPEG; q=1". */
export function bareType(contentType: string | null | undefined): string {
  return (contentType ?? "").split(";")[0]!.trim().toLowerCase();
}

export function attachmentKind(contentType: string | null | undefined): AttachmentKind {
  const type = bareType(contentType);
  if (INLINE_IMAGES.has(type)) return "image";
  if (type.startsWith("video/")) return "video";
  if (type.startsWith("audio/")) return "audio";
  return "file";
}

/** Whether a medium is made smaller when sent: pictures are, video, audio and files travel as they are. */
export function isFittedImage(contentType: string | null | undefined): boolean {
  const type = bareType(contentType);
  return INLINE_IMAGES.has(type) || type === "image/heic" || type === "image/heif";
}

function inUnit(value: number): string {
  const rounded = value < 10 ? Math.round(value * 10) / 10 : Math.round(value);
  return String(rounded);
}

/** A size in words, 1 KB being 1024 bytes: "512 bytes", "412 KB", "1.2 MB", "5 MB". */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return "an unknown size";
  if (bytes < 1024) return bytes === 1 ? "1 byte" : `${Math.round(bytes)} bytes`;
  const units = ["KB", "MB", "GB"];
  let value = bytes / 1024;
  for (let i = 0; i < units.length; i++) {
    const last = i === units.length - 1;
    // 1023.96 KB rounds to 1024 KB: that is 1 MB.
    if (last || Number(inUnit(value)) < 1024) return `${inUnit(value)} ${units[i]}`;
    value /= 1024;
  }
  return `${inUnit(value)} GB`;
}

/**
 * A message's attachments: the server's when it sends them, otherwise one per media URL with nothing known of it
 * (a message stored before Parley kept copies, or a server that does not describe them).
 */
export function attachmentsOf(message: {
  media: readonly string[];
  attachments?: readonly Attachment[];
}): Attachment[] {
  if (message.attachments && message.attachments.length > 0) return [...message.attachments];
  return message.media.map((url) => ({ url, contentType: null, size: null, name: null, state: "ready" as const }));
}

/** Whether the server described this attachment (type or size known), rather than only its URL. */
export function isDescribed(attachment: Attachment): boolean {
  return attachment.contentType !== null || attachment.size !== null;
}

/**
 * The words that name an attachment for a screen reader and for tests: "Attachment 1 (image/jpeg, 412 KB)";
 * "Attachment 2" when nothing is known of it. `index` counts from 0.
 */
export function attachmentLabel(attachment: Attachment, index: number): string {
  const facts = [bareType(attachment.contentType), attachment.size === null ? "" : formatBytes(attachment.size)];
  const known = facts.filter(Boolean);
  return `Attachment ${index + 1}${known.length > 0 ? ` (${known.join(", ")})` : ""}`;
}

/**
 * What a message's media will weigh once sent: images are fitted under the image limit, the rest travel as they are.
 * An estimate (an image may come out smaller still), which is what the composer measures against the route's limit.
 */
export function estimateSentBytes(
  media: readonly { contentType: string | null; size: number }[],
  limits: Pick<MediaLimits, "imageMaxBytes">,
): number {
  return media.reduce(
    (total, m) => total + (isFittedImage(m.contentType) ? Math.min(m.size, limits.imageMaxBytes) : m.size),
    0,
  );
}
