import type { OpenApiDocument } from "@/lib/api/openapi";

// Reading the generated OpenAPI document for the /docs page: the types it uses, $ref resolution, and the short
// type/rule labels shown in the field tables.
type Components = NonNullable<OpenApiDocument["components"]>;
export type SchemaOrRef = NonNullable<Components["schemas"]>[string];
export type Schema = Exclude<SchemaOrRef, { $ref: string }>;
export type PathItem = NonNullable<OpenApiDocument["paths"]>[string];
export type Operation = NonNullable<PathItem["get"]>;
type ParameterOrRef = NonNullable<Operation["parameters"]>[number];
export type Parameter = Extract<ParameterOrRef, { in: string }>;
export type HttpMethod = "get" | "post" | "put" | "delete";

export interface Field {
  name: string;
  type: string;
  /** The name of the component schema the field refers to, for a link to its table. */
  ref?: string;
  required: boolean;
  rules: string[];
  description: string;
}

export function refName(schema: SchemaOrRef | undefined): string | undefined {
  const ref = schema && "$ref" in schema ? schema.$ref : undefined;
  return typeof ref === "string" ? ref.replace("#/components/schemas/", "") : undefined;
}

export function resolve(doc: OpenApiDocument, schema: SchemaOrRef | undefined): Schema {
  const name = refName(schema);
  if (name) return resolve(doc, doc.components?.schemas?.[name]);
  return (schema ?? {}) as Schema;
}

export function componentSchema(doc: OpenApiDocument, name: string): Schema {
  const schema = doc.components?.schemas?.[name];
  if (!schema) throw new Error(`The OpenAPI document has no schema ${name}`);
  return resolve(doc, schema);
}

export function operation(doc: OpenApiDocument, method: HttpMethod, path: string): Operation {
  const op = doc.paths?.[path]?.[method];
  if (!op) throw new Error(`The OpenAPI document has no ${method.toUpperCase()} ${path}`);
  return op;
}

export function parameters(op: Operation, where?: Parameter["in"]): Parameter[] {
  return (op.parameters ?? []).filter((p): p is Parameter => "in" in p && (where === undefined || p.in === where));
}

function typeLabel(doc: OpenApiDocument, schema: SchemaOrRef): { type: string; ref?: string } {
  const ref = refName(schema);
  if (ref) return { type: ref, ref };
  const s = schema as Schema;
  if (s.type === "array" && s.items) {
    const inner = typeLabel(doc, s.items);
    return { type: `array of ${inner.type}`, ref: inner.ref };
  }
  const base = Array.isArray(s.type) ? s.type.join(" | ") : (s.type ?? "any");
  return { type: s.format ? `${base} (${s.format})` : base };
}

function quote(value: unknown): string {
  return typeof value === "string" ? (value === "" ? '""' : value) : JSON.stringify(value);
}

/** The constraints of a schema in words: limits, pattern, allowed values, default. */
export function rules(schema: SchemaOrRef): string[] {
  const s = schema as Schema;
  const out: string[] = [];
  if (s.enum && s.enum.length > 1) out.push(`one of ${s.enum.map(quote).join(", ")}`);
  if (s.enum && s.enum.length === 1) out.push(`always ${quote(s.enum[0])}`);
  if (s.minLength !== undefined && s.maxLength !== undefined) out.push(`${s.minLength} to ${s.maxLength} characters`);
  else if (s.maxLength !== undefined) out.push(`at most ${s.maxLength} characters`);
  if (s.pattern) out.push(`pattern ${s.pattern}`);
  if (s.minimum !== undefined && s.maximum !== undefined) out.push(`${s.minimum} to ${s.maximum}`);
  else if (s.minimum !== undefined) out.push(`at least ${s.minimum}`);
  if (s.minItems !== undefined && s.maxItems !== undefined) out.push(`${s.minItems} to ${s.maxItems} entries`);
  else if (s.maxItems !== undefined) out.push(`at most ${s.maxItems} entries`);
  if (s.type === "array" && s.items && !refName(s.items)) {
    const item = s.items as Schema;
    if (item.maxLength !== undefined) out.push(`each at most ${item.maxLength} characters`);
    if (item.format === "uri") out.push("each an http(s) URL");
  }
  if (s.default !== undefined) out.push(`default ${quote(s.default)}`);
  return out;
}

/** The rows of a field table for an object schema, in the schema's order. */
export function fieldsOf(doc: OpenApiDocument, schema: SchemaOrRef): Field[] {
  const s = resolve(doc, schema);
  const required = new Set(s.required ?? []);
  return Object.entries(s.properties ?? {}).map(([name, property]) => {
    const { type, ref } = typeLabel(doc, property);
    const p = property as Schema;
    return { name, type, ref, required: required.has(name), rules: rules(property), description: p.description ?? "" };
  });
}

export function parameterFields(list: Parameter[]): Field[] {
  return list.map((p) => ({
    name: p.name,
    type: p.schema ? (typeLabelOfParameter(p.schema) ?? "string") : "string",
    required: p.required === true,
    rules: p.schema ? rules(p.schema) : [],
    description: p.description ?? "",
  }));
}

function typeLabelOfParameter(schema: SchemaOrRef): string | undefined {
  const s = schema as Schema;
  if (typeof s.type !== "string") return undefined;
  return s.format ? `${s.type} (${s.format})` : s.type;
}

/** The example (or first named example) of a JSON response of an operation. */
export function responseExample(op: Operation, status: string, name?: string): unknown {
  const response = op.responses?.[status] as {
    content?: Record<string, { example?: unknown; examples?: Record<string, { value?: unknown }> }>;
  };
  const media = response?.content?.["application/json"];
  if (!media) return undefined;
  if (name) return media.examples?.[name]?.value;
  return media.example ?? Object.values(media.examples ?? {})[0]?.value;
}

/** For each error code, the first example response the document gives for it (by the example's name). */
export function errorExamples(doc: OpenApiDocument): Record<string, unknown> {
  const found: Record<string, unknown> = {};
  for (const item of Object.values(doc.paths ?? {})) {
    for (const method of ["get", "post", "put", "delete"] as const) {
      for (const [status, response] of Object.entries(item[method]?.responses ?? {})) {
        if (status.startsWith("2")) continue;
        const examples = (response as { content?: Record<string, { examples?: Record<string, { value?: unknown }> }> })
          .content?.["application/json"]?.examples;
        for (const [code, example] of Object.entries(examples ?? {})) if (!(code in found)) found[code] = example.value;
      }
    }
  }
  return found;
}
