import type { ReactNode } from "react";
import type { OpenApiDocument } from "@/lib/api/openapi";
import { CodeBlock } from "./code-block";
import { FieldsTable } from "./fields-table";
import { MethodBadge } from "./method-badge";
import { fieldsOf, operation, parameterFields, parameters, type HttpMethod, type Operation } from "./openapi-model";
import { RichText } from "./rich-text";
import { SubHeading } from "./section";

export interface CurlExample {
  title: string;
  code: string;
}

/** The error codes an operation documents, by HTTP status, from its responses' named examples. */
function errorsOf(op: Operation): { status: string; codes: string[] }[] {
  return Object.entries(op.responses ?? {})
    .filter(([status]) => !status.startsWith("2"))
    .map(([status, response]) => {
      const examples = (response as { content?: Record<string, { examples?: Record<string, unknown> }> }).content?.[
        "application/json"
      ]?.examples;
      return { status, codes: Object.keys(examples ?? {}) };
    });
}

/** One operation of the OpenAPI document: its description, parameter and body tables, curl examples, errors. */
export function EndpointSection({
  doc,
  method,
  path,
  id,
  curl,
  children,
}: {
  doc: OpenApiDocument;
  method: HttpMethod;
  path: string;
  id: string;
  curl: CurlExample[];
  children?: ReactNode;
}) {
  const op = operation(doc, method, path);
  const pathParams = parameters(op, "path");
  const queryParams = parameters(op, "query");
  const headerParams = parameters(op, "header");
  const body = (op.requestBody as { content?: Record<string, { schema?: Parameters<typeof fieldsOf>[1] }> } | undefined)
    ?.content?.["application/json"]?.schema;
  const authNeeded = op.security === undefined || op.security.length > 0;

  return (
    <article id={id} className="scroll-mt-6 py-6">
      <h3 className="flex flex-wrap items-center gap-3 text-xl font-semibold text-slate-900">
        <MethodBadge method={method} />
        <code className="font-mono text-lg">/v3{path}</code>
      </h3>
      {op.summary ? <p className="mt-1 text-slate-600">{op.summary}</p> : null}
      <p className="mt-1 text-xs text-slate-500">
        {authNeeded ? "Needs credentials: apikey header or HTTP Basic." : "Needs no credentials."}
      </p>
      {op.description ? <RichText text={op.description} className="mt-4" /> : null}

      {pathParams.length > 0 ? <FieldsTable caption="Path parameters" fields={parameterFields(pathParams)} /> : null}
      {headerParams.length > 0 ? (
        <FieldsTable caption="Request headers" fields={parameterFields(headerParams)} />
      ) : null}
      {queryParams.length > 0 ? (
        <FieldsTable
          caption="Query parameters (all values are strings on the wire)"
          fields={parameterFields(queryParams)}
        />
      ) : null}
      {body ? <FieldsTable caption="Request body (JSON)" fields={fieldsOf(doc, body)} /> : null}

      {curl.length > 0 ? <SubHeading>Example</SubHeading> : null}
      {curl.map((example) => (
        <CodeBlock key={example.title} title={example.title} code={example.code} language="bash" />
      ))}

      {children}

      <SubHeading>Errors</SubHeading>
      <ul className="mt-2 space-y-1 text-sm text-slate-700">
        {errorsOf(op).map(({ status, codes }) => (
          <li key={status}>
            <span className="mr-2 font-mono font-semibold">{status}</span>
            {codes.map((code, i) => (
              <span key={code}>
                {i > 0 ? ", " : null}
                <a href={`#error-${code}`} className="font-mono text-indigo-700 underline underline-offset-2">
                  {code}
                </a>
              </span>
            ))}
          </li>
        ))}
      </ul>
    </article>
  );
}
