"use client";

import { useId, type ReactNode } from "react";
import { useModalDialog } from "./use-modal-dialog";
import { Button } from "./button";

/**
 * A modal question before an action that cannot be undone (revoke a key, release a number). The native <dialog>
 * traps focus and closes on Escape.
 */
export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  onConfirm,
  onCancel,
  cancelLabel = "Cancel",
  busy = false,
  tone = "danger",
}: {
  open: boolean;
  title: string;
  children?: ReactNode;
  confirmLabel: string;
  onConfirm: () => void;
  onCancel: () => void;
  /** The dismissing button's name, where "Cancel" would be ambiguous. */
  cancelLabel?: string;
  busy?: boolean;
  tone?: "danger" | "primary";
}) {
  const ref = useModalDialog(open);
  // Several dialogs can live on one page (revoke, release…): each is named by its own heading.
  const titleId = useId();
  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        onCancel();
      }}
      className="m-auto w-full max-w-md rounded-lg border border-slate-200 p-0 shadow-xl backdrop:bg-slate-900/40"
    >
      <div className="p-5">
        <h2 id={titleId} className="text-base font-semibold text-slate-900">
          {title}
        </h2>
        {children && <div className="mt-2 text-sm text-slate-600">{children}</div>}
      </div>
      <div className="flex justify-end gap-2 border-t border-slate-100 bg-slate-50 px-5 py-3">
        <Button variant="secondary" onClick={onCancel} disabled={busy}>
          {cancelLabel}
        </Button>
        <Button variant={tone} onClick={onConfirm} disabled={busy}>
          {confirmLabel}
        </Button>
      </div>
    </dialog>
  );
}
