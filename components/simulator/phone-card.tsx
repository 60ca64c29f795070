"use client";

import { useLayoutEffect, useRef, useState, type FormEvent } from "react";
import { Badge, StatusBadge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { TextField } from "@/components/ui/field";
import { Notice } from "@/components/ui/notice";
import { ApiFailure, failureText } from "@/components/ui/api-client";
import { formatNumber, formatTime } from "@/components/ui/format-time";
import { AttachButton, AttachmentPreviews, useAttachFiles } from "@/components/media/attach-files";
import { MediaAttachments } from "@/components/media/media-attachments";
import { simulatorInboundBody, type SimulatorMessage } from "@/lib/carriers/simulator/phone-simulator-schema";
import { DEFAULT_MEDIA_LIMITS, type MediaLimits } from "@/lib/media/attachment";
import { usePhoneThread, type PhoneLine } from "@/components/data/use-phone-thread";
import { useSendFromPhone } from "@/components/data/use-phone-thread";

const PAGE = 50;
const KEYWORDS = ["STOP", "START", "HELP"] as const;
const PICTURE_TYPES = "image/jpeg,image/png,image/gif,image/webp,image/heic,image/heif";
// A phone's camera roll: pictures only (a file of another type dropped on the card is left out, and said so).
const PICTURES_ONLY = {
  test: (file: File) => file.type.startsWith("image/"),
  refusal: "The phone sends pictures only: other files were left out.",
};

function clockTime(iso: string): string {
  return new Date(iso).toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit", second: "2-digit" });
}

function Bubble({ message }: { message: SimulatorMessage }) {
  const fromPhone = message.direction === "inbound";
  const refused = message.status === "rejected";
  const tone = fromPhone
    ? "rounded-br-sm bg-indigo-600 text-white"
    : refused
      ? "rounded-bl-sm border border-dashed border-red-300 bg-white text-slate-500"
      : "rounded-bl-sm border border-slate-200 bg-white text-slate-900";
  return (
    <li className={`flex ${fromPhone ? "justify-end" : "justify-start"}`}>
      <div className={`flex max-w-[85%] min-w-0 flex-col ${fromPhone ? "items-end" : "items-start"}`}>
        <div className={`rounded-2xl px-3 py-2 text-sm shadow-xs ${tone}`}>
          <span className="sr-only">{fromPhone ? "Sent by the phone: " : "Received by the phone: "}</span>
          {message.body && <p className="break-words whitespace-pre-wrap">{message.body}</p>}
          <MediaAttachments message={message} tone={fromPhone ? "dark" : "light"} />
        </div>
        <p className="mt-0.5 flex flex-wrap items-center gap-1 px-1 text-[11px] text-slate-500">
          <time dateTime={message.createdAt} title={formatTime(message.createdAt)}>
            {clockTime(message.createdAt)}
          </time>
          {message.automatic && <span>· automatic reply</span>}
          {message.numSegments > 1 && <span>· {message.numSegments} parts</span>}
          {!fromPhone && <StatusBadge status={message.status} />}
        </p>
        {refused && (
          <p className="px-1 text-[11px] text-red-700">
            Never reached the phone: {message.rejectReason ?? "refused by the carrier"}
          </p>
        )}
      </div>
    </li>
  );
}

/** One simulated phone talking to one of the account's numbers: its messages both ways, and a box to text from it. */
export function PhoneCard({
  line,
  label,
  outcome,
  autoFocus,
  onClose,
  mediaLimits = DEFAULT_MEDIA_LIMITS,
}: {
  line: PhoneLine;
  /** The account number's label, if it has one. */
  label: string;
  /** What the simulated network does with messages to this phone, when its ending chooses something special. */
  outcome: string | null;
  autoFocus: boolean;
  onClose: () => void;
  /** The server's media settings: the most a picture may weigh when uploaded. */
  mediaLimits?: MediaLimits;
}) {
  const [count, setCount] = useState(PAGE);
  const thread = usePhoneThread(line, count);
  const send = useSendFromPhone(line);
  const pictures = useAttachFiles({ limits: mediaLimits, only: PICTURES_ONLY });
  const [text, setText] = useState("");
  const [textError, setTextError] = useState<string | null>(null);
  const [sendError, setSendError] = useState<string | null>(null);

  const listRef = useRef<HTMLOListElement>(null);
  const stickToBottom = useRef(true);
  const messages = thread.data?.messages ?? [];
  const lastId = messages.at(-1)?.messageId;
  useLayoutEffect(() => {
    const list = listRef.current;
    if (list && stickToBottom.current) list.scrollTop = list.scrollHeight;
  }, [lastId]);

  function deliver(body: string, media: string[], fromBox: boolean) {
    setSendError(null);
    send.mutate(
      { text: body, media },
      {
        onSuccess: () => {
          if (fromBox) {
            setText("");
            pictures.clear();
          }
          stickToBottom.current = true;
        },
        onError: (error) => {
          if (fromBox && error instanceof ApiFailure && error.field === "text") setTextError(error.message);
          else setSendError(failureText(error));
        },
      },
    );
  }

  const held = pictures.uploading
    ? "Waiting for the pictures to finish uploading…"
    : pictures.failed
      ? "Remove the pictures that could not be uploaded, then send."
      : null;

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (held) return;
    const media = pictures.ready.map((medium) => medium.url);
    const checked = simulatorInboundBody.safeParse({
      phone: line.phone,
      accountNumber: line.accountNumber,
      text,
      media,
    });
    if (!checked.success) {
      const issue = checked.error.issues[0]!;
      if (issue.path[0] === "media") setSendError(`Pictures: ${issue.message}`);
      else setTextError(`Text ${issue.message}`);
      return;
    }
    setTextError(null);
    deliver(text, media, true);
  }

  const phone = formatNumber(line.phone);
  const accountNumber = formatNumber(line.accountNumber);
  const optStatus = thread.data?.optStatus ?? "";
  const hidden = (thread.data?.total ?? 0) - messages.length;

  return (
    <section
      aria-label={`Phone ${phone} texting ${accountNumber}`}
      className="flex min-w-0 flex-col overflow-hidden rounded-2xl border border-slate-300 bg-white shadow-sm"
    >
      <header className="flex items-start justify-between gap-2 border-b border-slate-200 px-4 py-3">
        <div className="min-w-0">
          <h2 className="truncate font-semibold text-slate-900">{phone}</h2>
          <p className="truncate text-xs text-slate-500">
            texting {accountNumber}
            {label && ` (${label})`}
          </p>
          {outcome && <p className="mt-0.5 text-xs text-amber-700">Simulated network: {outcome}</p>}
        </div>
        <div className="flex shrink-0 items-center gap-1">
          {optStatus === "out" && (
            <Badge tone="red" title="This phone texted STOP (or an admin opted it out): sends to it are refused">
              opted out
            </Badge>
          )}
          {optStatus === "in" && <Badge tone="green">opted in</Badge>}
          <Button variant="ghost" size="sm" aria-label={`Close phone ${phone}`} title="Close" onClick={onClose}>
            ✕
          </Button>
        </div>
      </header>

      <ol
        ref={listRef}
        aria-label={`Messages of ${phone}`}
        aria-live="polite"
        onScroll={(event) => {
          const list = event.currentTarget;
          stickToBottom.current = list.scrollHeight - list.scrollTop - list.clientHeight < 48;
        }}
        className="relative h-80 space-y-2 overflow-y-auto bg-slate-50 px-3 py-3 sm:h-96"
      >
        {hidden > 0 && (
          <li className="flex justify-center">
            <Button variant="secondary" size="sm" onClick={() => setCount((c) => c + PAGE)}>
              Show earlier messages ({hidden.toLocaleString()} more)
            </Button>
          </li>
        )}
        {thread.isPending && <li className="py-8 text-center text-sm text-slate-500">Loading messages…</li>}
        {thread.isSuccess && messages.length === 0 && (
          <li className="px-4 py-10 text-center text-sm text-slate-500">
            No messages yet. Text {accountNumber} from this phone below, or send to {phone} from the API or a
            conversation: it arrives here.
          </li>
        )}
        {messages.map((message) => (
          <Bubble key={message.messageId} message={message} />
        ))}
      </ol>

      {thread.isError && (
        <Notice tone="error" className="mx-3 mt-3">
          Could not read this phone&apos;s messages: {failureText(thread.error)}
        </Notice>
      )}
      {sendError && (
        <Notice tone="error" className="mx-3 mt-3">
          Not sent: {sendError}
        </Notice>
      )}

      <form
        onSubmit={submit}
        {...pictures.dropTarget}
        data-dragging={pictures.dragging || undefined}
        className={`space-y-2 border-t border-slate-200 px-3 py-3 ${pictures.dragging ? "bg-indigo-50 ring-2 ring-indigo-400 ring-inset" : ""}`}
        noValidate
      >
        <TextField
          label="Text from phone"
          value={text}
          autoFocus={autoFocus}
          autoComplete="off"
          placeholder="Type as the phone's owner would"
          error={textError}
          onPaste={pictures.onPaste}
          onChange={(event) => {
            setText(event.target.value);
            if (textError) setTextError(null);
          }}
        />
        <AttachmentPreviews items={pictures.items} onRemove={pictures.remove} label="Pictures to send" />
        {pictures.notice && (
          <p role="alert" className="text-xs text-amber-800">
            {pictures.notice}
          </p>
        )}
        <div className="flex flex-wrap items-center justify-between gap-2">
          <div role="group" aria-label="Keywords" className="flex gap-1.5">
            {KEYWORDS.map((keyword) => (
              <Button
                key={keyword}
                variant="secondary"
                size="sm"
                className="rounded-full"
                title={`Text ${keyword} from ${phone}`}
                disabled={send.isPending}
                onClick={() => deliver(keyword, [], false)}
              >
                {keyword}
              </Button>
            ))}
          </div>
          <div className="flex items-center gap-1">
            <AttachButton
              label="Attach picture"
              accept={PICTURE_TYPES}
              multiple={false}
              disabled={send.isPending}
              onFiles={pictures.add}
              testId="attach-picture-input"
            />
            <Button type="submit" disabled={send.isPending || held !== null} title={held ?? undefined}>
              {send.isPending ? "Sending…" : "Send from phone"}
            </Button>
          </div>
        </div>
        {held && <p className="text-xs text-slate-600">{held}</p>}
      </form>
    </section>
  );
}
