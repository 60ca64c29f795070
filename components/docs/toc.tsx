export interface TocEntry {
  href: string;
  label: string;
  children?: TocEntry[];
}

/** The page's table of contents: plain anchors, sticky on wide screens. */
export function Toc({ entries }: { entries: TocEntry[] }) {
  return (
    <nav aria-label="Contents" className="text-sm">
      <p className="mb-2 text-xs font-semibold uppercase tracking-wide text-slate-500">Contents</p>
      <ul className="space-y-1">
        {entries.map((entry) => (
          <li key={entry.href}>
            <a
              href={entry.href}
              className="block rounded px-2 py-1 text-slate-700 hover:bg-slate-100 hover:text-slate-900"
            >
              {entry.label}
            </a>
            {entry.children ? (
              <ul className="ml-3 border-l border-slate-200 pl-2">
                {entry.children.map((child) => (
                  <li key={child.href}>
                    <a
                      href={child.href}
                      className="block rounded px-2 py-0.5 font-mono text-xs text-slate-600 hover:bg-slate-100 hover:text-slate-900"
                    >
                      {child.label}
                    </a>
                  </li>
                ))}
              </ul>
            ) : null}
          </li>
        ))}
      </ul>
    </nav>
  );
}
