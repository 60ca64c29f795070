"use client";

import { useCallback, useEffect, useRef, useState, type ClipboardEvent, type DragEvent } from "react";
import { useViewer } from "@/components/portal/portal-context";
import { failureText } from "@/components/ui/api-client";
import { Button } from "@/components/ui/button";
import { attachmentKind, formatBytes, MAX_ATTACHMENTS, type MediaLimits } from "@/lib/media/attachment";
import { MediaIcon } from "./media-icon";
import { uploadMedium, type UploadedMedium } from "./upload-media";

// Files attached to a message before it is sent. Each one is uploaded the moment it is picked, dropped or pasted, so
// that sending only names media Parley already holds; the message waits while any upload is on its way.

export interface PendingUpload {
  key: string;
  name: string;
  /** The type the browser guessed from the name (Parley sniffs the real one from the bytes). */
  type: string;
  size: number;
  /** A blob: address to show a picture before (and while) it uploads. */
  preview: string | null;
  status: "uploading" | "ready" | "failed";
  error: string | null;
  medium: UploadedMedium | null;
}

let counter = 0;

function hasFiles(event: DragEvent): boolean {
  return Array.from(event.dataTransfer?.types ?? []).includes("Files");
}

/**
 * The attachments of one message being written: add (picker, drop, paste), remove, and what is ready to send.
 * `only` narrows what is taken (the phone simulator attaches pictures only).
 */
export function useAttachFiles({
  limits,
  max = MAX_ATTACHMENTS,
  only,
}: {
  limits: MediaLimits;
  max?: number;
  only?: { test: (file: File) => boolean; refusal: string };
}) {
  const { accountId } = useViewer();
  const [items, setItems] = useState<PendingUpload[]>([]);
  const [notice, setNotice] = useState<string | null>(null);
  const [dragging, setDragging] = useState(false);
  const controllers = useRef(new Map<string, AbortController>());
  const previews = useRef(new Set<string>());
  const count = useRef(0);
  count.current = items.length;

  useEffect(() => {
    const running = controllers.current;
    const shown = previews.current;
    return () => {
      for (const controller of running.values()) controller.abort();
      for (const url of shown) URL.revokeObjectURL(url);
    };
  }, []);

  const patch = useCallback((key: string, change: Partial<PendingUpload>) => {
    setItems((list) => list.map((item) => (item.key === key ? { ...item, ...change } : item)));
  }, []);

  const add = useCallback(
    (files: Iterable<File>) => {
      const all = Array.from(files);
      const wanted = only ? all.filter((file) => only.test(file)) : all;
      const room = Math.max(0, max - count.current);
      const taken = wanted.slice(0, room);
      const words: string[] = [];
      if (wanted.length < all.length && only) words.push(only.refusal);
      if (taken.length < wanted.length)
        words.push(
          `A message carries at most ${max} ${max === 1 ? "file" : "files"}: ${wanted.length - taken.length} left out.`,
        );
      setNotice(words.length > 0 ? words.join(" ") : null);
      if (taken.length === 0) return;
      count.current += taken.length;

      const added = taken.map((file): PendingUpload => {
        const key = `upload-${++counter}`;
        const preview = attachmentKind(file.type) === "image" ? URL.createObjectURL(file) : null;
        if (preview) previews.current.add(preview);
        const tooLarge = file.size > limits.uploadMaxBytes;
        const empty = file.size === 0;
        return {
          key,
          name: file.name || "file",
          type: file.type,
          size: file.size,
          preview,
          status: tooLarge || empty ? "failed" : "uploading",
          error: tooLarge
            ? `${formatBytes(file.size)}, over the ${formatBytes(limits.uploadMaxBytes)} a file may weigh`
            : empty
              ? "the file is empty"
              : null,
          medium: null,
        };
      });
      setItems((list) => [...list, ...added]);

      added.forEach((item, i) => {
        if (item.status !== "uploading") return;
        const controller = new AbortController();
        controllers.current.set(item.key, controller);
        uploadMedium(accountId, taken[i]!, controller.signal)
          .then((medium) => patch(item.key, { status: "ready", medium, error: null }))
          .catch((error: unknown) => {
            if ((error as Error).name === "AbortError") return;
            patch(item.key, { status: "failed", error: failureText(error) });
          })
          .finally(() => controllers.current.delete(item.key));
      });
    },
    [accountId, limits.uploadMaxBytes, max, only, patch],
  );

  const remove = useCallback((key: string) => {
    controllers.current.get(key)?.abort();
    controllers.current.delete(key);
    setNotice(null);
    setItems((list) => {
      const gone = list.find((item) => item.key === key);
      if (gone?.preview) {
        URL.revokeObjectURL(gone.preview);
        previews.current.delete(gone.preview);
      }
      return list.filter((item) => item.key !== key);
    });
  }, []);

  /** After the message left: the files are forgotten (Parley keeps its copies under the message). */
  const clear = useCallback(() => {
    for (const controller of controllers.current.values()) controller.abort();
    controllers.current.clear();
    for (const url of previews.current) URL.revokeObjectURL(url);
    previews.current.clear();
    setNotice(null);
    setItems([]);
  }, []);

  const dropTarget = {
    onDragOver: (event: DragEvent) => {
      if (!hasFiles(event)) return;
      event.preventDefault();
      event.dataTransfer.dropEffect = "copy";
      setDragging(true);
    },
    onDragLeave: (event: DragEvent) => {
      // Leaving for one of the target's own children is not leaving the target.
      if (event.currentTarget.contains(event.relatedTarget as Node | null)) return;
      setDragging(false);
    },
    onDrop: (event: DragEvent) => {
      setDragging(false);
      if (!hasFiles(event)) return;
      event.preventDefault();
      add(event.dataTransfer.files);
    },
  };

  /** A picture pasted into the text box is attached instead of pasted as text. */
  const onPaste = (event: ClipboardEvent) => {
    const files = event.clipboardData?.files;
    if (!files || files.length === 0) return;
    event.preventDefault();
    add(files);
  };

  const ready = items.flatMap((item) => (item.status === "ready" && item.medium ? [item.medium] : []));
  return {
    items,
    ready,
    uploading: items.some((item) => item.status === "uploading"),
    failed: items.some((item) => item.status === "failed"),
    notice,
    dragging,
    add,
    remove,
    clear,
    dropTarget,
    onPaste,
  };
}

/** A button that opens the file picker; the input itself stays out of sight (tests reach it by its test id). */
export function AttachButton({
  label,
  accept,
  multiple,
  disabled,
  onFiles,
  testId,
}: {
  label: string;
  accept: string;
  multiple: boolean;
  disabled?: boolean;
  onFiles: (files: File[]) => void;
  testId: string;
}) {
  const input = useRef<HTMLInputElement>(null);
  return (
    <>
      <Button
        variant="ghost"
        size="sm"
        aria-label={label}
        title={label}
        disabled={disabled}
        onClick={() => input.current?.click()}
      >
        <MediaIcon kind="clip" className="h-3.5 w-3.5" /> {label}
      </Button>
      <input
        ref={input}
        type="file"
        hidden
        tabIndex={-1}
        accept={accept}
        multiple={multiple}
        data-testid={testId}
        onChange={(event) => {
          const files = Array.from(event.target.files ?? []);
          // The same file picked again must fire change again.
          event.target.value = "";
          if (files.length > 0) onFiles(files);
        }}
      />
    </>
  );
}

function statusText(item: PendingUpload): string {
  if (item.status === "uploading") return "Uploading…";
  if (item.status === "failed") return `Not uploaded: ${item.error ?? "refused"}`;
  const medium = item.medium;
  return medium ? `${medium.contentType}, ${formatBytes(medium.size)}` : "";
}

/** The files attached so far: a thumbnail or a chip each, its state, and a button to take it off. */
export function AttachmentPreviews({
  items,
  onRemove,
  label = "Files to send",
}: {
  items: PendingUpload[];
  onRemove: (key: string) => void;
  label?: string;
}) {
  if (items.length === 0) return null;
  return (
    <ul aria-label={label} className="mt-2 flex flex-wrap gap-2">
      {items.map((item) => (
        <li
          key={item.key}
          data-upload-state={item.status}
          className={`flex max-w-full items-center gap-2 rounded-md border px-2 py-1.5 text-xs ${
            item.status === "failed" ? "border-red-300 bg-red-50 text-red-900" : "border-slate-200 bg-slate-50"
          }`}
        >
          {item.preview ? (
            <img src={item.preview} alt={item.name} className="h-12 w-12 shrink-0 rounded object-cover" />
          ) : (
            <span
              aria-hidden="true"
              className="flex h-12 w-12 shrink-0 items-center justify-center rounded bg-slate-200 text-slate-600"
            >
              <MediaIcon kind={attachmentKind(item.medium?.contentType ?? item.type)} className="h-6 w-6" />
            </span>
          )}
          <span className="min-w-0">
            <span className="block max-w-[12rem] truncate font-medium text-slate-900" title={item.name}>
              {item.name}
            </span>
            <span
              className={`block ${item.status === "failed" ? "text-red-700" : "text-slate-500"}`}
              role={item.status === "failed" ? "alert" : undefined}
            >
              {item.status === "uploading" && (
                <span className="mr-1 inline-block h-2 w-2 animate-pulse rounded-full bg-sky-500" aria-hidden="true" />
              )}
              {statusText(item)}
            </span>
          </span>
          <button
            type="button"
            aria-label={`Remove ${item.name}`}
            title={`Remove ${item.name}`}
            onClick={() => onRemove(item.key)}
            className="shrink-0 rounded px-1.5 py-0.5 text-slate-500 hover:bg-slate-200 hover:text-slate-900 focus-visible:outline-2 focus-visible:outline-indigo-600"
          >
            ✕
          </button>
        </li>
      ))}
    </ul>
  );
}
