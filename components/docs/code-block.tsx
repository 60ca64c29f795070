/** A block of code or JSON, with an optional caption (no copy button: the page ships no client JavaScript). */
export function CodeBlock({
  code,
  title,
  language,
}: {
  code: string;
  title?: string;
  language?: "bash" | "json" | "http";
}) {
  return (
    <figure className="my-4 overflow-hidden rounded-lg border border-gray-800 bg-gray-900 shadow-sm">
      {title ? (
        <figcaption className="flex items-center justify-between border-b border-gray-700 px-4 py-2 text-xs font-medium text-gray-300">
          <span>{title}</span>
          {language ? <span className="font-mono uppercase tracking-wide text-gray-400">{language}</span> : null}
        </figcaption>
      ) : null}
      <pre tabIndex={0} className="overflow-x-auto p-4 text-[13px] leading-relaxed text-gray-100">
        <code className="font-mono">{code}</code>
      </pre>
    </figure>
  );
}

export function JsonBlock({ value, title }: { value: unknown; title?: string }) {
  return <CodeBlock code={JSON.stringify(value, null, 2)} title={title} language="json" />;
}
