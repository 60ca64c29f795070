import type { ReactNode } from "react";

// The small Markdown subset the OpenAPI descriptions use: paragraphs, **bold**, `code` and [links](/path).
const INLINE = /(\*\*[^*]+\*\*|`[^`]+`|\[[^\]]+\]\([^)\s]+\))/g;

export function InlineText({ text }: { text: string }) {
  const parts: ReactNode[] = [];
  text.split(INLINE).forEach((part, i) => {
    if (part === "") return;
    if (part.startsWith("**") && part.endsWith("**")) {
      parts.push(
        <strong key={i} className="font-semibold text-slate-900">
          <InlineText text={part.slice(2, -2)} />
        </strong>,
      );
    } else if (part.startsWith("`") && part.endsWith("`") && part.length > 1) {
      parts.push(
        <code key={i} className="rounded bg-slate-100 px-1 py-0.5 font-mono text-[0.85em] text-slate-800">
          {part.slice(1, -1)}
        </code>,
      );
    } else if (part.startsWith("[")) {
      const match = /^\[([^\]]+)\]\(([^)\s]+)\)$/.exec(part);
      parts.push(
        match ? (
          <a key={i} href={match[2]} className="text-indigo-700 underline underline-offset-2 hover:text-indigo-900">
            {match[1]}
          </a>
        ) : (
          part
        ),
      );
    } else {
      parts.push(part);
    }
  });
  return <>{parts}</>;
}

/** Paragraphs separated by blank lines; single line breaks are spaces. */
export function RichText({ text, className = "" }: { text: string; className?: string }) {
  const paragraphs = text
    .split(/\n\s*\n/)
    .map((p) => p.replace(/\s*\n\s*/g, " ").trim())
    .filter(Boolean);
  return (
    <div className={`space-y-3 leading-relaxed text-slate-700 ${className}`}>
      {paragraphs.map((p, i) => (
        <p key={i}>
          <InlineText text={p} />
        </p>
      ))}
    </div>
  );
}
