import type { OpenApiDocument } from "@/lib/api/openapi";
import { FieldsTable } from "./fields-table";
import { componentSchema, fieldsOf } from "./openapi-model";
import { InlineText } from "./rich-text";

/** The field table of one component schema of the document, linkable as #schema-<Name>. */
export function SchemaSection({ doc, name, title }: { doc: OpenApiDocument; name: string; title?: string }) {
  const schema = componentSchema(doc, name);
  return (
    <div id={`schema-${name}`} className="scroll-mt-6">
      <FieldsTable caption={title ?? name} fields={fieldsOf(doc, schema)} />
      {schema.description ? (
        <p className="-mt-2 mb-4 text-sm text-slate-500">
          <InlineText text={schema.description} />
        </p>
      ) : null}
    </div>
  );
}
