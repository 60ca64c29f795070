"use client";

import { useCallback, useMemo, useSyncExternalStore } from "react";
import type { PhoneLine } from "@/components/data/use-phone-thread";

// The phones open in the simulator, kept in the browser (per account) so that a reload, or a second window, shows
// the same phones.

const CHANGED = "parley:simulator-phones";

function subscribe(onChange: () => void): () => void {
  window.addEventListener("storage", onChange);
  window.addEventListener(CHANGED, onChange);
  return () => {
    window.removeEventListener("storage", onChange);
    window.removeEventListener(CHANGED, onChange);
  };
}

function parse(raw: string | null): PhoneLine[] {
  try {
    const value: unknown = JSON.parse(raw ?? "[]");
    if (!Array.isArray(value)) return [];
    return value.filter(
      (line): line is PhoneLine =>
        typeof line === "object" &&
        line !== null &&
        typeof (line as PhoneLine).phone === "string" &&
        typeof (line as PhoneLine).accountNumber === "string",
    );
  } catch {
    return [];
  }
}

export const sameLine = (a: PhoneLine, b: PhoneLine) => a.phone === b.phone && a.accountNumber === b.accountNumber;

/** The open phones (null until the browser's copy has been read) and a setter that stores them. */
export function useOpenPhones(accountId: string): [PhoneLine[] | null, (next: PhoneLine[]) => void] {
  const storageKey = `parley.simulator.${accountId}`;
  const raw = useSyncExternalStore(
    subscribe,
    () => localStorage.getItem(storageKey) ?? "[]",
    () => null,
  );
  const lines = useMemo(() => (raw === null ? null : parse(raw)), [raw]);
  const save = useCallback(
    (next: PhoneLine[]) => {
      localStorage.setItem(storageKey, JSON.stringify(next));
      window.dispatchEvent(new Event(CHANGED));
    },
    [storageKey],
  );
  return [lines, save];
}
