"use client";

import type { ReactNode } from "react";
import { useMessage, type MessageWithSdrs } from "@/components/data/use-messages";
import { failureText } from "@/components/ui/api-client";
import { Badge, StatusBadge } from "@/components/ui/badge";
import { formatInZone, formatNumber } from "@/components/ui/format-time";
import { Notice } from "@/components/ui/notice";
import { Panel } from "@/components/ui/page-header";
import { SafeLink } from "@/components/ui/safe-link";
import { AttachmentView } from "@/components/media/media-attachments";
import { attachmentsOf, bareType, formatBytes, isDescribed, type Attachment } from "@/lib/media/attachment";
import { explainStatus, isFinalStatus, type Explanation } from "@/lib/messaging/explain-status";
import { SdrTimeline } from "./sdr-timeline";
import { CancelMessage } from "./cancel-message";
import { useViewer } from "@/components/portal/portal-context";

/** The message as the detail route answers it, with its media described when the server says so. */
type DescribedMessage = MessageWithSdrs["message"] & { attachments?: Attachment[] };

/**
 * One message and its SDR timeline. While the message is on its way (queued, sending, sent) it is read again every
 * second, so the timeline moves without a reload; at a final status it stops.
 */
export function MessageView({
  initial,
  timeZone,
  senderName = null,
}: {
  initial: MessageWithSdrs;
  timeZone: string;
  /** The staff member who sent it from the portal, by name (the id is on hover). */
  senderName?: string | null;
}) {
  const detail = useMessage(initial);
  const { message, sdrs } = detail.data;
  const live = !isFinalStatus(message.status);
  const explanation = explainStatus({ status: message.status, rejectReason: message.rejectReason, sdrs });
  const viewer = useViewer();

  return (
    <div className="space-y-6">
      {explanation && <ExplanationNotice explanation={explanation} timeZone={timeZone} />}
      {detail.error && (
        <Notice tone="warning">
          Could not refresh the message: {failureText(detail.error)}. Showing what was last read.
        </Notice>
      )}
      <div className="grid gap-6 lg:grid-cols-5">
        <Panel title="Message" className="lg:col-span-2">
          <div className="mb-4 flex flex-wrap items-center gap-2">
            <StatusBadge status={message.status} />
            <span className="text-sm text-slate-600" role="status" aria-live="polite">
              {live ? (
                <span className="inline-flex items-center gap-1.5">
                  <span className="h-2 w-2 animate-pulse rounded-full bg-sky-500" aria-hidden="true" />
                  On its way: updating live
                </span>
              ) : message.direction === "inbound" ? (
                "Received"
              ) : (
                "Final status"
              )}
            </span>
          </div>
          {message.cancellable && viewer.role === "admin" && (
            <div className="mb-4">
              <CancelMessage messageId={message.messageId} scheduled={message.status === "scheduled"} />
            </div>
          )}
          <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-2 text-sm">
            <Field label="Direction">{message.direction}</Field>
            <Field label="From">
              <span className="font-mono">{formatNumber(message.from)}</span>
            </Field>
            <Field label="To">
              <span className="font-mono">{formatNumber(message.to)}</span>
            </Field>
            <Field label="Created">
              <span className="font-mono text-xs" title={message.timestamp}>
                {formatInZone(message.createdAt, timeZone, { ms: true })}
              </span>{" "}
              <span className="text-xs text-slate-500">{timeZone}</span>
            </Field>
            {message.sendAt && (
              <Field label="Scheduled for">
                <span className="font-mono text-xs">{formatInZone(message.sendAt, timeZone)}</span>
              </Field>
            )}
            {message.validUntil && (
              <Field label="Valid until">
                <span className="font-mono text-xs">{formatInZone(message.validUntil, timeZone)}</span>
              </Field>
            )}
            <Field label="Type">{message.messageType}</Field>
            <Field label="Segments">
              {message.numSegments} · {message.encoding}
            </Field>
            <Field label="Reference id">{message.referenceId || <Muted>none</Muted>}</Field>
            <Field label="User">
              {message.userId || message.userType ? (
                <>
                  {senderName ? (
                    <span title={message.userId}>{senderName}</span>
                  ) : (
                    message.userId || <Muted>no id</Muted>
                  )}
                  {message.userType && <span className="text-slate-500"> ({message.userType})</span>}
                </>
              ) : (
                <Muted>none</Muted>
              )}
            </Field>
            <Field label="Bulk">{message.bulk ? "yes" : "no"}</Field>
            <Field label="Conversational">{message.conversational ? "yes" : "no"}</Field>
            {message.optLogic && <Field label="Opt status">{message.optStatus || <Muted>none</Muted>}</Field>}
          </dl>
          <h3 className="mt-5 text-sm font-medium text-slate-700">Body</h3>
          {message.body ? (
            <p className="mt-1 rounded-md bg-slate-50 p-3 text-sm break-words whitespace-pre-wrap text-slate-900">
              {message.body}
            </p>
          ) : (
            <p className="mt-1 text-sm text-slate-500">No text.</p>
          )}
          <MediaList message={message} />
        </Panel>
        <Panel
          title="Timeline"
          description="Session detail records (SDRs), oldest first; the time is since the previous record."
          className="lg:col-span-3"
        >
          <SdrTimeline records={sdrs} timeZone={timeZone} numSegments={message.numSegments} />
        </Panel>
      </div>
    </div>
  );
}

/**
 * Each medium of the message: its thumbnail or chip, type and size (for a sent message, the size it was sent at,
 * after fitting). A server that does not describe media lists the URLs alone.
 */
function MediaList({ message }: { message: DescribedMessage }) {
  const attachments = attachmentsOf(message);
  if (attachments.length === 0) return null;
  const described = attachments.some(isDescribed);
  return (
    <>
      <h3 className="mt-4 text-sm font-medium text-slate-700">Media</h3>
      {described ? (
        <ul className="mt-1 divide-y divide-slate-100 text-sm">
          {attachments.map((attachment, i) => (
            <li key={i} className="flex items-center gap-3 py-2" data-attachment-row={i + 1}>
              <AttachmentView attachment={attachment} index={i} size="thumb" />
              <div className="min-w-0 text-xs">
                <p className="truncate font-medium text-slate-900">{attachment.name ?? `Attachment ${i + 1}`}</p>
                <p className="text-slate-500">
                  {[
                    bareType(attachment.contentType) || "unknown type",
                    attachment.size === null ? "" : formatBytes(attachment.size),
                    attachment.state === "ready" ? "" : attachment.state,
                  ]
                    .filter(Boolean)
                    .join(" · ")}
                </p>
              </div>
            </li>
          ))}
        </ul>
      ) : (
        <ul className="mt-1 space-y-1 text-sm">
          {attachments.map((attachment, i) => (
            <li key={i} className="break-all">
              <SafeLink url={attachment.url} linkClassName="text-indigo-700 underline" />
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <>
      <dt className="text-slate-500">{label}</dt>
      <dd className="min-w-0 break-words text-slate-900">{children}</dd>
    </>
  );
}

function Muted({ children }: { children: ReactNode }) {
  return <span className="text-slate-500">{children}</span>;
}

function ExplanationNotice({ explanation, timeZone }: { explanation: Explanation; timeZone: string }) {
  return (
    <Notice tone={explanation.tone}>
      <p className="font-semibold">{explanation.title}</p>
      {explanation.detail && <p className="mt-1">{explanation.detail}</p>}
      {explanation.retryAt && <p className="mt-1">Next attempt at {formatInZone(explanation.retryAt, timeZone)}.</p>}
      {explanation.code && (
        <p className="mt-2 text-xs opacity-80">
          Code: <Badge tone="gray">{explanation.code}</Badge>
        </p>
      )}
    </Notice>
  );
}
