"use client";

import { useEffect, useRef } from "react";

/**
 * A native <dialog> shown as a modal while `open` (it traps focus and closes on Escape), closed otherwise: put the
 * returned ref on the dialog.
 */
export function useModalDialog(open: boolean) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return ref;
}
