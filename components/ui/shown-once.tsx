import type { ReactNode } from "react";
import { Button } from "./button";
import { CopyButton } from "./copy-button";

/**
 * A secret the server made and answers once (a new key, a new user's password): shown with a copy button until the
 * viewer says it is stored. The caller keeps it in component state only, never in the query cache.
 */
export function ShownOnce({
  label,
  title,
  secret,
  secretTestId,
  copyLabel,
  onDone,
  children,
  footer,
}: {
  /** The section's accessible name. */
  label: string;
  title: ReactNode;
  secret: string;
  secretTestId: string;
  copyLabel: string;
  onDone: () => void;
  /** What to do with the secret, above it. */
  children: ReactNode;
  /** More words below it. */
  footer?: ReactNode;
}) {
  return (
    <section
      aria-label={label}
      className="rounded-lg border border-emerald-200 bg-emerald-50 p-5 text-sm text-emerald-950"
    >
      <h2 className="text-base font-semibold">{title}</h2>
      {children}
      <div className="mt-3 flex flex-wrap items-center gap-2">
        <code
          data-testid={secretTestId}
          className="min-w-0 break-all rounded-md border border-emerald-200 bg-white px-3 py-2 font-mono text-sm text-slate-900"
        >
          {secret}
        </code>
        <CopyButton text={secret} label={copyLabel} />
      </div>
      {footer}
      <Button variant="secondary" size="sm" className="mt-3" onClick={onDone}>
        I have stored it
      </Button>
    </section>
  );
}
