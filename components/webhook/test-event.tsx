"use client";

import { useSendTestEvent } from "@/components/data/use-webhook";
import { failureText } from "@/components/ui/api-client";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Notice } from "@/components/ui/notice";
import { Panel } from "@/components/ui/page-header";
import type { TestEventResult } from "@/lib/webhooks/send-test-event";

const FAILURE_TITLE = {
  guard: "Refused by the URL guard",
  timeout: "No answer in time",
  network: "No connection",
  status: "Not accepted",
} as const;

function Outcome({ result }: { result: TestEventResult }) {
  return (
    <div
      className={`rounded-md border p-4 text-sm ${result.ok ? "border-emerald-200 bg-emerald-50" : "border-red-200 bg-red-50"}`}
      role="status"
      aria-label="Test event result"
    >
      <div className="flex flex-wrap items-center gap-2">
        <Badge tone={result.ok ? "green" : "red"}>
          {result.ok ? "Accepted" : FAILURE_TITLE[result.failure ?? "status"]}
        </Badge>
        {result.httpStatus !== null && <span className="font-medium text-slate-900">HTTP {result.httpStatus}</span>}
        <span className="text-slate-600">{result.latencyMs} ms</span>
        <span className="min-w-0 truncate font-mono text-xs text-slate-500" title={result.url}>
          {result.url}
        </span>
      </div>
      {result.error && result.failure !== "status" && <p className="mt-2 text-red-800">{result.error}</p>}
      {result.httpStatus !== null && (
        <div className="mt-3">
          <p className="text-xs font-medium text-slate-600">Response body (first 500 bytes)</p>
          <pre className="mt-1 max-h-48 overflow-auto rounded border border-slate-200 bg-white p-2 font-mono text-xs whitespace-pre-wrap break-all text-slate-800">
            {result.body || "(empty)"}
          </pre>
        </div>
      )}
      <p className="mt-2 text-xs text-slate-500">
        Logged below as a test event (<span className="font-mono">{result.eventId}</span>).
      </p>
    </div>
  );
}

/** Posts a signed sample event to the saved URL now and shows what the receiver answered. */
export function TestEvent({ hasUrl }: { hasUrl: boolean }) {
  const send = useSendTestEvent();
  return (
    <Panel
      title="Send test event"
      description={
        <>
          A sample inbound-message event, signed and sent like a real one, with the header{" "}
          <code className="font-mono text-xs">parley-test: true</code> so your receiver can tell it apart.
        </>
      }
    >
      <div className="space-y-4">
        <Button onClick={() => send.mutate()} disabled={!hasUrl || send.isPending}>
          {send.isPending ? "Sending…" : "Send test event"}
        </Button>
        {!hasUrl && <p className="text-sm text-slate-500">Save a URL first.</p>}
        {send.isError && <Notice tone="error">{failureText(send.error)}</Notice>}
        {send.data && !send.isPending && <Outcome result={send.data.test} />}
      </div>
    </Panel>
  );
}
