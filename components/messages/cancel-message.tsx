"use client";

import { useState } from "react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useAccountApi } from "@/components/portal/portal-context";
import { apiCall, failureText } from "@/components/ui/api-client";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { Notice } from "@/components/ui/notice";
import { keys } from "@/components/ui/query-keys";

/** The message page's Cancel: for a message that has not left yet (scheduled, or still queued). Admins only. */
export function CancelMessage({ messageId, scheduled }: { messageId: string; scheduled: boolean }) {
  const api = useAccountApi();
  const cache = useQueryClient();
  const [asking, setAsking] = useState(false);
  const cancel = useMutation({
    mutationFn: () => apiCall(api(`/messages/${encodeURIComponent(messageId)}/cancel`), { method: "POST", body: {} }),
    onSettled: () => {
      setAsking(false);
      return cache.invalidateQueries({ queryKey: keys.messages.all });
    },
  });
  return (
    <div className="space-y-2">
      <Button variant="secondary" size="sm" onClick={() => setAsking(true)} disabled={cancel.isPending}>
        Cancel
      </Button>
      {cancel.error && <Notice tone="error">Not cancelled: {failureText(cancel.error)}</Notice>}
      <ConfirmDialog
        open={asking}
        title="Cancel this message?"
        confirmLabel={cancel.isPending ? "Cancelling…" : "Cancel message"}
        busy={cancel.isPending}
        onConfirm={() => cancel.mutate()}
        onCancel={() => setAsking(false)}
        cancelLabel="Keep it"
      >
        {scheduled
          ? "It will not be sent at its scheduled time. This cannot be undone."
          : "It leaves the queue and is never sent, unless the carrier already has it. This cannot be undone."}
      </ConfirmDialog>
    </div>
  );
}
