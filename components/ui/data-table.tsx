import type { ReactNode } from "react";
import { failureText } from "./api-client";
import { Notice } from "./notice";

export interface Column {
  label: string;
  /** Where it shows ("hidden sm:table-cell": from a small window up); the narrow layout puts it in the first cell. */
  className?: string;
  /** Read by screen readers only (an actions column). */
  srOnly?: boolean;
}

/** A panel's list table, edge to edge in its panel, scrolling sideways rather than squeezing on a narrow window. */
export function DataTable({ label, columns, children }: { label: string; columns: Column[]; children: ReactNode }) {
  return (
    <div className="-mx-5 overflow-x-auto">
      <table className="w-full text-left text-sm" aria-label={label}>
        <thead className="bg-slate-50 text-xs text-slate-500 uppercase">
          <tr>
            {columns.map((column) =>
              column.srOnly ? (
                <th key={column.label} className={`px-3 py-2 ${column.className ?? ""}`.trim()}>
                  <span className="sr-only">{column.label}</span>
                </th>
              ) : (
                <th key={column.label} className={`px-3 py-2 font-medium ${column.className ?? ""}`.trim()}>
                  {column.label}
                </th>
              ),
            )}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/** A list that could not be loaded: what, and the server's words. */
export function LoadFailure({ what, error }: { what: string; error: unknown }) {
  return (
    <Notice tone="error" className="mb-4">
      The {what} could not be loaded. {failureText(error)}
    </Notice>
  );
}
