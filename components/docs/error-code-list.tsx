import type { ErrorCodeDoc } from "@/lib/api/openapi/errors";
import { CodeBlock } from "./code-block";
import { InlineText } from "./rich-text";

/** One entry per error code, each with id `error-<Code>`: the target of the statusUri of every error response. */
export function ErrorCodeList({ codes, examples }: { codes: ErrorCodeDoc[]; examples: Record<string, unknown> }) {
  return (
    <div className="space-y-4">
      {codes.map((code) => (
        <article
          key={code.status}
          id={`error-${code.status}`}
          className="scroll-mt-6 rounded-lg border border-slate-200 bg-white p-5 target:ring-2 target:ring-indigo-400"
        >
          <h3 className="flex flex-wrap items-baseline gap-x-3 gap-y-1">
            <a
              href={`#error-${code.status}`}
              className="font-mono text-lg font-semibold text-slate-900 hover:underline"
            >
              {code.status}
            </a>
            <span className="rounded bg-slate-100 px-2 py-0.5 font-mono text-xs font-semibold text-slate-700">
              HTTP {code.statusCode}
            </span>
            {code.appliesTo ? <span className="text-xs text-slate-500">{code.appliesTo}</span> : null}
          </h3>
          <dl className="mt-3 grid grid-cols-[8rem_1fr] gap-x-4 gap-y-2 text-sm">
            <dt className="text-slate-500">statusCode</dt>
            <dd className="font-mono text-slate-900">{code.statusCode}</dd>
            <dt className="text-slate-500">statusMessage</dt>
            <dd className="font-mono text-slate-900">{code.statusMessage.replace("{method}", "<METHOD>")}</dd>
            <dt className="text-slate-500">When</dt>
            <dd className="text-slate-700">
              <InlineText text={code.when} />
            </dd>
          </dl>
          <CodeBlock
            language="json"
            code={JSON.stringify(
              examples[code.status] ?? {
                status: code.status,
                statusCode: code.statusCode,
                statusMessage: code.statusMessage.replace("{method}", "GET"),
                statusUri: code.statusUri,
              },
              null,
              2,
            )}
          />
        </article>
      ))}
    </div>
  );
}
