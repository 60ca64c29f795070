import { SafeLink } from "@/components/ui/safe-link";
import { MediaIcon } from "./media-icon";
import { safeHttpUrl } from "@/lib/messaging/check-media-url";
import {
  attachmentKind,
  attachmentLabel,
  attachmentsOf,
  bareType,
  formatBytes,
  isDescribed,
  type Attachment,
} from "@/lib/media/attachment";

// A message's media where the portal shows messages (a thread's bubbles, the phone simulator, the message page).
// Pictures inline, players for video and audio, a chip to download anything else. Every address goes through the
// http(s) rule (safeHttpUrl): a stored javascript: or data: URL is shown as text, never as a link, image or player.

export type AttachmentTone = "light" | "dark";

const CHIP: Record<AttachmentTone, string> = {
  light: "bg-slate-50 text-slate-800 ring-slate-200 hover:bg-slate-100",
  dark: "bg-white/15 text-white ring-white/30 hover:bg-white/25",
};

const MUTED: Record<AttachmentTone, string> = { light: "text-slate-500", dark: "text-indigo-100" };

function FileChip({
  href,
  attachment,
  index,
  tone,
}: {
  href: string;
  attachment: Attachment;
  index: number;
  tone: AttachmentTone;
}) {
  const facts = [bareType(attachment.contentType), attachment.size === null ? "" : formatBytes(attachment.size)];
  return (
    <a
      href={href}
      target="_blank"
      rel="noopener noreferrer"
      download={attachment.name ?? true}
      className={`inline-flex max-w-full items-center gap-2 rounded-md px-2.5 py-1.5 text-xs ring-1 ${CHIP[tone]}`}
    >
      <MediaIcon kind={attachmentKind(attachment.contentType)} />
      <span className="min-w-0">
        <span className="block truncate font-medium">{attachment.name ?? `Attachment ${index + 1}`}</span>
        <span className={`block ${MUTED[tone]}`}>{facts.filter(Boolean).join(" · ") || "file"}</span>
      </span>
    </a>
  );
}

/**
 * One attachment as it is shown: `thumb` keeps a picture small (the message page's rows), `inline` lets it take
 * up to a bubble's width. `index` counts from 0 and names it ("Attachment 1 (image/jpeg, 412 KB)").
 */
export function AttachmentView({
  attachment,
  index,
  tone = "light",
  size = "inline",
}: {
  attachment: Attachment;
  index: number;
  tone?: AttachmentTone;
  size?: "inline" | "thumb";
}) {
  const label = attachmentLabel(attachment, index);
  const common = { "data-attachment-state": attachment.state, title: attachment.name ?? undefined };
  if (attachment.state === "pending") {
    return (
      <span {...common} className={`inline-flex items-center gap-1.5 text-xs ${MUTED[tone]}`}>
        <span className="h-2 w-2 animate-pulse rounded-full bg-sky-400" aria-hidden="true" />
        <span className="sr-only">{label}: </span>
        Loading attachment…
      </span>
    );
  }
  if (attachment.state === "unavailable") {
    return (
      <span {...common} className={`inline-flex items-center gap-1 text-xs italic ${MUTED[tone]}`}>
        <MediaIcon kind="warning" className="h-3.5 w-3.5" />
        <span className="sr-only">{label}: </span>
        attachment unavailable
      </span>
    );
  }
  const href = safeHttpUrl(attachment.url);
  if (href === null) {
    // Only a URL stored before the http(s) rule existed gets here: its text, never a link.
    return (
      <span {...common} className="text-xs break-all">
        Attachment {index + 1}: <SafeLink url={attachment.url} />
      </span>
    );
  }
  if (!isDescribed(attachment)) {
    // Nothing known of it but its address (a server that does not describe media): a link, never an image.
    return (
      <span {...common} data-attachment-kind="link" className="block min-w-0 text-xs">
        <SafeLink url={attachment.url} className="inline-flex max-w-full items-center gap-1" linkClassName="underline">
          <MediaIcon kind="clip" className="h-3.5 w-3.5" /> Attachment {index + 1}
        </SafeLink>
      </span>
    );
  }
  const kind = attachmentKind(attachment.contentType);
  if (kind === "image") {
    return (
      <a
        {...common}
        data-attachment-kind="image"
        href={href}
        target="_blank"
        rel="noopener noreferrer"
        className="block w-fit"
      >
        <img
          src={href}
          alt={label}
          loading="lazy"
          decoding="async"
          className={
            size === "thumb"
              ? "h-16 w-16 rounded object-cover ring-1 ring-slate-200"
              : "max-h-60 max-w-full rounded-lg object-contain sm:max-w-xs"
          }
        />
      </a>
    );
  }
  if (size === "thumb") {
    return (
      <a
        {...common}
        data-attachment-kind={kind}
        href={href}
        target="_blank"
        rel="noopener noreferrer"
        aria-label={label}
        className="flex h-16 w-16 shrink-0 items-center justify-center rounded bg-slate-100 text-2xl ring-1 ring-slate-200 hover:bg-slate-200"
      >
        <MediaIcon kind={kind} className="h-7 w-7 text-slate-600" />
      </a>
    );
  }
  if (kind === "video") {
    return (
      <video
        {...common}
        data-attachment-kind="video"
        src={href}
        controls
        preload="metadata"
        aria-label={label}
        className="max-h-72 max-w-full rounded-lg bg-black sm:max-w-xs"
      >
        <FileChip href={href} attachment={attachment} index={index} tone={tone} />
      </video>
    );
  }
  if (kind === "audio") {
    return (
      <audio
        {...common}
        data-attachment-kind="audio"
        src={href}
        controls
        preload="metadata"
        aria-label={label}
        className="max-w-full"
      >
        <FileChip href={href} attachment={attachment} index={index} tone={tone} />
      </audio>
    );
  }
  return (
    <span {...common} data-attachment-kind={kind} className="block max-w-full">
      <FileChip href={href} attachment={attachment} index={index} tone={tone} />
    </span>
  );
}

/** All of a message's media, from its `attachments` or, when the server does not send them, its media URLs. */
export function MediaAttachments({
  message,
  tone = "light",
  className = "",
}: {
  message: { media: readonly string[]; attachments?: readonly Attachment[] };
  tone?: AttachmentTone;
  className?: string;
}) {
  const attachments = attachmentsOf(message);
  if (attachments.length === 0) return null;
  return (
    <div data-attachments className={`mt-1.5 flex flex-col items-start gap-1.5 ${className}`}>
      {attachments.map((attachment, i) => (
        <AttachmentView key={i} attachment={attachment} index={i} tone={tone} />
      ))}
    </div>
  );
}
