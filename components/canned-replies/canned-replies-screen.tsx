"use client";

import { useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { failureText } from "@/components/ui/api-client";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { EmptyState } from "@/components/ui/empty-state";
import { Notice } from "@/components/ui/notice";
import { Panel } from "@/components/ui/page-header";
import type { CannedReplyView } from "@/lib/canned-replies/canned-reply-schema";
import { CannedReplyForm } from "./canned-reply-form";
import { useCannedReplies, useDeleteCannedReply } from "./use-canned-replies";

/** /canned-replies: the viewer's canned replies (account-wide and personal), to add, edit and delete. */
export function CannedRepliesScreen({ initial }: { initial: CannedReplyView[] }) {
  const list = useCannedReplies({ initial });
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<CannedReplyView | null>(null);
  const remove = useDeleteCannedReply({ onSuccess: () => setDeleting(null) });
  const replies = list.data ?? [];

  return (
    <div className="space-y-6">
      <Panel
        title="Canned replies"
        description="Type / in a conversation's reply box to insert one."
        actions={
          adding ? null : (
            <Button
              onClick={() => {
                setEditing(null);
                setAdding(true);
              }}
            >
              New canned reply
            </Button>
          )
        }
      >
        {adding && (
          <div className="mb-6 rounded-md border border-slate-200 bg-slate-50 p-4">
            <CannedReplyForm onDone={() => setAdding(false)} />
          </div>
        )}
        {list.error ? (
          <Notice tone="error" className="mb-4">
            The canned replies could not be loaded: {failureText(list.error)}
          </Notice>
        ) : null}
        {replies.length === 0 ? (
          <EmptyState title="No canned replies yet">
            Save the answers you give often, such as opening hours or a thank-you, with variables like{" "}
            <code className="font-mono">{"{{contact.first_name}}"}</code>.
          </EmptyState>
        ) : (
          <ul aria-label="Canned replies" className="divide-y divide-slate-100">
            {replies.map((reply) => (
              <li key={reply.id} className="py-3" data-canned-reply={reply.shortcut}>
                {editing === reply.id ? (
                  <CannedReplyForm reply={reply} onDone={() => setEditing(null)} />
                ) : (
                  <div className="flex flex-wrap items-start justify-between gap-3">
                    <div className="min-w-0 flex-1">
                      <p className="flex items-center gap-2">
                        <span className="font-mono text-sm font-semibold text-slate-900">/{reply.shortcut}</span>
                        {reply.scope === "account" ? (
                          <Badge tone="indigo">Everyone</Badge>
                        ) : (
                          <Badge tone="gray">Only me</Badge>
                        )}
                      </p>
                      <p className="mt-1 text-sm whitespace-pre-wrap break-words text-slate-700">{reply.text}</p>
                    </div>
                    {reply.editable && (
                      <div className="flex gap-2">
                        <Button
                          variant="secondary"
                          size="sm"
                          aria-label={`Edit /${reply.shortcut}`}
                          onClick={() => {
                            setAdding(false);
                            setEditing(reply.id);
                          }}
                        >
                          Edit
                        </Button>
                        <Button
                          variant="ghost"
                          size="sm"
                          aria-label={`Delete /${reply.shortcut}`}
                          onClick={() => {
                            remove.reset();
                            setDeleting(reply);
                          }}
                        >
                          Delete
                        </Button>
                      </div>
                    )}
                  </div>
                )}
              </li>
            ))}
          </ul>
        )}
      </Panel>
      <ConfirmDialog
        open={deleting !== null}
        title={deleting ? `Delete /${deleting.shortcut}?` : "Delete"}
        confirmLabel={remove.isPending ? "Deleting…" : "Delete"}
        busy={remove.isPending}
        onCancel={() => setDeleting(null)}
        onConfirm={() => deleting && remove.mutate(deleting)}
      >
        <p>
          {deleting?.scope === "account"
            ? "Nobody in the account will find it in the reply box any more."
            : "You will no longer find it in the reply box."}
        </p>
        {remove.error ? <Notice tone="error">{failureText(remove.error)}</Notice> : null}
      </ConfirmDialog>
    </div>
  );
}
