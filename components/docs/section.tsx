import type { ReactNode } from "react";

export function Section({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <section id={id} className="scroll-mt-6 border-t border-slate-200 pt-10">
      <h2 className="mb-4 text-2xl font-semibold tracking-tight text-slate-900">
        <a href={`#${id}`} className="hover:underline">
          {title}
        </a>
      </h2>
      {children}
    </section>
  );
}

export function SubHeading({ id, children }: { id?: string; children: ReactNode }) {
  return (
    <h4 id={id} className="mt-6 scroll-mt-6 text-sm font-semibold uppercase tracking-wide text-slate-500">
      {children}
    </h4>
  );
}
