import type { Field } from "./openapi-model";
import { InlineText } from "./rich-text";

/** A table of fields or parameters: name, type, required, rules (limits, pattern, values, default), meaning. */
export function FieldsTable({
  fields,
  caption,
  showRequired = true,
}: {
  fields: Field[];
  caption?: string;
  showRequired?: boolean;
}) {
  return (
    <div tabIndex={0} className="my-4 overflow-x-auto rounded-lg border border-slate-200 bg-white">
      <table className="w-full border-collapse text-left text-sm">
        {caption ? (
          <caption className="border-b border-slate-200 px-4 py-2 text-left text-sm font-semibold text-slate-800">
            {caption}
          </caption>
        ) : null}
        <thead className="bg-slate-50 text-xs uppercase tracking-wide text-slate-500">
          <tr>
            <th className="px-4 py-2 font-medium">Field</th>
            <th className="px-4 py-2 font-medium">Type</th>
            {showRequired ? <th className="px-4 py-2 font-medium">Required</th> : null}
            <th className="px-4 py-2 font-medium">Rules and meaning</th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100 align-top">
          {fields.map((field) => (
            <tr key={field.name}>
              <td className="whitespace-nowrap px-4 py-2 font-mono text-[13px] font-semibold text-slate-900">
                {field.name}
              </td>
              <td className="whitespace-nowrap px-4 py-2 text-slate-600">
                {field.ref ? (
                  <a href={`#schema-${field.ref}`} className="text-indigo-700 underline underline-offset-2">
                    {field.type}
                  </a>
                ) : (
                  field.type
                )}
              </td>
              {showRequired ? (
                <td className="px-4 py-2 text-slate-600">{field.required ? "required" : "optional"}</td>
              ) : null}
              <td className="px-4 py-2 text-slate-700">
                {field.description ? (
                  <p>
                    <InlineText text={field.description} />
                  </p>
                ) : null}
                {field.rules.length > 0 ? (
                  <p className="mt-1 font-mono text-xs text-slate-500">{field.rules.join(" · ")}</p>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
