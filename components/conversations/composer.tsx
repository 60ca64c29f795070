"use client";

import { useRef, useState, type FormEvent, type KeyboardEvent } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { useCannedReplyPicker } from "@/components/canned-replies/canned-reply-picker";
import { useSendReply } from "@/components/data/use-conversations";
import { AttachButton, AttachmentPreviews, useAttachFiles } from "@/components/media/attach-files";
import { Button } from "@/components/ui/button";
import { replySchema } from "@/lib/conversations/conversation-schema";
import {
  ACCEPTED_UPLOAD_TYPES,
  DEFAULT_MEDIA_LIMITS,
  estimateSentBytes,
  formatBytes,
  isFittedImage,
  type Attachment,
  type MediaLimits,
} from "@/lib/media/attachment";
import { applyChange } from "./apply-change";
import { ComposerModeToggle, NoteComposer, type ComposerMode } from "./note-composer";
import { alphabetName, countForComposer, lookAlikeFix } from "./segment-counter";
import { readableChar } from "@/lib/segments/smart-encoding";

export function newClientId(): string {
  const bytes = new Uint8Array(12);
  crypto.getRandomValues(bytes);
  return "c" + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * The reply box. Enter sends, Shift+Enter breaks the line. The bubble appears at once under a client id (sent as
 * the message's referenceId), so the live echo replaces it instead of doubling it; a refusal keeps the bubble,
 * marked failed, with the reason. Files (picked, dropped on the box or pasted) are uploaded at once and sent as the
 * message's media: the message becomes an MMS, measured against the route's limit. Typing "/" opens the canned
 * replies picker; the reply goes in with the contact's, the agent's and the number's variables filled in.
 */
export function Composer({
  conversationId,
  disabled,
  limits = DEFAULT_MEDIA_LIMITS,
  accountNumber,
  contactName,
}: {
  conversationId: string;
  disabled: boolean;
  limits?: MediaLimits;
  /** The conversation's number, for {{account.number}}. */
  accountNumber?: string;
  /** The contact's name, for {{contact.name}} and {{contact.first_name}}. */
  contactName?: string | null;
}) {
  const [body, setBody] = useState("");
  const [mediaText, setMediaText] = useState("");
  const [showMedia, setShowMedia] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [mode, setMode] = useState<ComposerMode>("reply");
  const counter = countForComposer(body);
  const fix = lookAlikeFix(body, counter);
  const sendReply = useSendReply(conversationId);
  const cache = useQueryClient();
  const files = useAttachFiles({ limits });
  const box = useRef<HTMLTextAreaElement>(null);
  const picker = useCannedReplyPicker({
    text: body,
    setText: setBody,
    textarea: box,
    vars: { accountNumber, contactName },
  });

  const typedUrls = () =>
    mediaText
      .split(/[\s,]+/)
      .map((s) => s.trim())
      .filter(Boolean);
  const kept = files.items.filter((item) => item.status !== "failed");
  const measured = kept.map((item) => ({
    contentType: item.medium?.contentType ?? item.type,
    size: item.medium?.size ?? item.size,
  }));
  const sentBytes = estimateSentBytes(measured, limits);
  const shrunk = measured.some((m) => isFittedImage(m.contentType) && m.size > limits.imageMaxBytes);
  const mms = kept.length > 0 || typedUrls().length > 0;
  const overLimit = sentBytes > limits.messageMaxBytes;
  const held = files.uploading
    ? "Waiting for the files to finish uploading…"
    : files.failed
      ? "Remove the files that could not be uploaded, then send."
      : overLimit
        ? `Over the ${formatBytes(limits.messageMaxBytes)} an MMS may carry here: remove a file.`
        : null;

  const send = async () => {
    if (held) return;
    const typed = typedUrls();
    const uploaded = files.items.flatMap((item) =>
      item.status === "ready" && item.medium ? [{ name: item.name, medium: item.medium }] : [],
    );
    const media = [...typed, ...uploaded.map((u) => u.medium.url)];
    const clientId = newClientId();
    const parsed = replySchema.safeParse({ body, media, clientId });
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      // A media problem names the line it is on: "Media URL 2 must be an http:// or https:// URL …".
      const line = issue?.path[0] === "media" && typeof issue.path[1] === "number" ? issue.path[1] + 1 : null;
      setError(issue ? (line ? `Media URL ${line} ${issue.message}` : issue.message) : "Check the message");
      return;
    }
    setError(null);
    setBody("");
    setMediaText("");
    files.clear();
    const sending = sendReply(parsed.data, counter);
    // The bubble (placed by now) shows the uploaded files as what they are, not as bare addresses.
    if (uploaded.length > 0) {
      const described: Attachment[] = [
        ...typed.map((url) => ({ url, contentType: null, size: null, name: null, state: "ready" as const })),
        ...uploaded.map(({ name, medium }) => ({
          url: medium.url,
          contentType: medium.contentType,
          size: medium.size,
          name,
          state: "ready" as const,
        })),
      ];
      applyChange(cache, { kind: "described", conversationId, clientId, attachments: described });
    }
    await sending;
  };

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    void send();
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (picker.onKeyDown(event)) return;
    if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      if (!disabled) void send();
    }
  };

  const toggle = <ComposerModeToggle mode={mode} onChange={setMode} />;
  if (mode === "note") return <NoteComposer conversationId={conversationId} toggle={toggle} />;
  return (
    <form
      onSubmit={onSubmit}
      {...(disabled ? {} : files.dropTarget)}
      data-dragging={files.dragging || undefined}
      className={`relative border-t border-slate-200 bg-white p-3 ${files.dragging ? "ring-2 ring-indigo-400 ring-inset" : ""}`}
    >
      {files.dragging && (
        <div
          aria-hidden="true"
          className="pointer-events-none absolute inset-0 z-10 flex items-center justify-center bg-indigo-50/90 text-sm font-medium text-indigo-800"
        >
          Drop files to attach them
        </div>
      )}
      <label htmlFor="composer-message" className="sr-only">
        Message
      </label>
      {toggle}
      {!disabled && picker.list}
      <textarea
        ref={box}
        id="composer-message"
        aria-label="Message"
        {...picker.boxProps}
        value={body}
        disabled={disabled}
        onChange={(e) => {
          setBody(e.target.value);
          picker.track(e.target);
        }}
        onKeyDown={onKeyDown}
        onPaste={disabled ? undefined : files.onPaste}
        rows={3}
        placeholder={
          disabled
            ? "This phone opted out: nothing can be sent to it."
            : "Write a reply… (Enter sends, Shift+Enter for a new line, / for canned replies; drop or paste files to attach them)"
        }
        className="w-full resize-y rounded-md border border-slate-300 px-3 py-2 text-sm disabled:bg-slate-100"
      />
      <AttachmentPreviews items={files.items} onRemove={files.remove} />
      {files.notice && (
        <p role="alert" className="mt-1 text-xs text-amber-800">
          {files.notice}
        </p>
      )}
      {showMedia && (
        <label className="mt-2 block text-xs font-medium text-slate-700">
          Media URLs (one per line)
          <textarea
            value={mediaText}
            disabled={disabled}
            onChange={(e) => setMediaText(e.target.value)}
            rows={2}
            placeholder="https://example.com/photo.jpg"
            className="mt-1 w-full rounded-md border border-slate-300 px-3 py-2 text-sm font-normal"
          />
        </label>
      )}
      <div className="mt-2 flex flex-wrap items-center justify-between gap-2">
        <div className="flex flex-wrap items-center gap-x-2 text-xs text-slate-600">
          <span
            data-testid="message-kind"
            title={mms ? "Sent as a multimedia message" : "Sent as a text message"}
            className={`rounded px-1.5 py-0.5 font-semibold ${mms ? "bg-indigo-100 text-indigo-800" : "bg-slate-100 text-slate-700"}`}
          >
            {mms ? "MMS" : "SMS"}
          </span>
          <p data-testid="segment-counter" aria-live="polite">
            {counter.characters} characters · <span data-segments={counter.numSegments}>{counter.numSegments}</span>{" "}
            {counter.numSegments === 1 ? "segment" : "segments"} · {alphabetName(counter.encoding)}
            {counter.culprit && (
              <>
                {" "}
                (because of “<span className="font-semibold">{counter.culprit}</span>”)
              </>
            )}
          </p>
          {fix && !mms && (
            <p data-testid="look-alike-fix" aria-live="polite" className="text-amber-800">
              · {fix.replaced.map(readableChar).join(", ")} {fix.replaced.length === 1 ? "costs" : "cost"}{" "}
              {counter.numSegments} {counter.numSegments === 1 ? "segment" : "segments"} instead of {fix.numSegments}{" "}
              <Button
                variant="ghost"
                size="sm"
                onClick={() => setBody(fix.text)}
                title="Replace them with plain characters (smart encoding)"
              >
                Fix
              </Button>
            </p>
          )}
          {kept.length > 0 && (
            <p
              data-testid="media-total"
              aria-live="polite"
              title={`Pictures over ${formatBytes(limits.imageMaxBytes)} are made smaller when sent; video, audio and other files travel as they are.`}
              className={overLimit ? "font-medium text-red-700" : ""}
            >
              · {formatBytes(sentBytes)} of {formatBytes(limits.messageMaxBytes)}
              {shrunk && " (pictures made smaller to fit)"}
            </p>
          )}
        </div>
        <div className="flex items-center gap-2">
          <AttachButton
            label="Attach files"
            accept={ACCEPTED_UPLOAD_TYPES}
            multiple
            disabled={disabled}
            onFiles={files.add}
            testId="attach-files-input"
          />
          <Button variant="ghost" size="sm" onClick={() => setShowMedia((v) => !v)} disabled={disabled}>
            {showMedia ? "No media URLs" : "Add media URLs"}
          </Button>
          <Button type="submit" disabled={disabled || held !== null} title={held ?? undefined}>
            Send
          </Button>
        </div>
      </div>
      {held && !disabled && (
        <p data-testid="send-held" aria-live="polite" className="mt-1 text-xs text-slate-600">
          {held}
        </p>
      )}
      {error && (
        <p role="alert" className="mt-1 text-sm text-red-700">
          {error}
        </p>
      )}
    </form>
  );
}
