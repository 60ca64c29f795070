"use client";

import { useState, type FormEvent, type KeyboardEvent } from "react";
import { useSendReply } from "@/components/data/use-conversations";
import { Button } from "@/components/ui/button";
import { replySchema } from "@/lib/conversations/conversation-schema";
import { alphabetName, countForComposer } from "./segment-counter";

function newClientId(): string {
  const bytes = new Uint8Array(12);
  crypto.getRandomValues(bytes);
  return "c" + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * The reply box. Enter sends, Shift+Enter breaks the line. The bubble appears at once under a client id (sent as
 * the message's referenceId), so the live echo replaces it instead of doubling it; a refusal keeps the bubble,
 * marked failed, with the reason.
 */
export function Composer({ conversationId, disabled }: { conversationId: string; disabled: boolean }) {
  const [body, setBody] = useState("");
  const [mediaText, setMediaText] = useState("");
  const [showMedia, setShowMedia] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const counter = countForComposer(body);
  const sendReply = useSendReply(conversationId);

  const send = async () => {
    const media = mediaText
      .split(/[\s,]+/)
      .map((s) => s.trim())
      .filter(Boolean);
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
    await sendReply(parsed.data, counter);
  };

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    void send();
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      if (!disabled) void send();
    }
  };

  return (
    <form onSubmit={onSubmit} className="border-t border-slate-200 bg-white p-3">
      <label htmlFor="composer-message" className="sr-only">
        Message
      </label>
      <textarea
        id="composer-message"
        aria-label="Message"
        value={body}
        disabled={disabled}
        onChange={(e) => setBody(e.target.value)}
        onKeyDown={onKeyDown}
        rows={3}
        placeholder={
          disabled
            ? "This phone opted out: nothing can be sent to it."
            : "Write a reply… (Enter sends, Shift+Enter for a new line)"
        }
        className="w-full resize-y rounded-md border border-slate-300 px-3 py-2 text-sm disabled:bg-slate-100"
      />
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
        <p data-testid="segment-counter" aria-live="polite" className="text-xs text-slate-600">
          {counter.characters} characters · <span data-segments={counter.numSegments}>{counter.numSegments}</span>{" "}
          {counter.numSegments === 1 ? "segment" : "segments"} · {alphabetName(counter.encoding)}
          {counter.culprit && (
            <>
              {" "}
              (because of “<span className="font-semibold">{counter.culprit}</span>”)
            </>
          )}
        </p>
        <div className="flex items-center gap-2">
          <Button variant="ghost" size="sm" onClick={() => setShowMedia((v) => !v)} disabled={disabled}>
            {showMedia ? "No media" : "Add media"}
          </Button>
          <Button type="submit" disabled={disabled}>
            Send
          </Button>
        </div>
      </div>
      {error && (
        <p role="alert" className="mt-1 text-sm text-red-700">
          {error}
        </p>
      )}
    </form>
  );
}
