import { z } from "zod";
import { extendZodWithOpenApi, type OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { successCodes } from "../error-codes";

// What every resource's part of the OpenAPI document uses: the success envelope around a result, apiVersion, the
// response headers. Schemas made after extendZodWithOpenApi get `.openapi()`; the schemas of lib/ (requests,
// serializers) carry their documentation through zod's own `.meta()`, which the generator reads as well.
extendZodWithOpenApi(z);

export type Responses = Parameters<OpenAPIRegistry["registerPath"]>[0]["responses"];

export const apiVersion = z.literal("v3").openapi({ description: "Always v3." });

/** The envelope's fields around a success's data. */
export const envelopeOf = (code: keyof typeof successCodes) => ({
  status: z.literal(code),
  statusCode: z.literal(200).openapi({ description: "Equals the HTTP status." }),
  statusMessage: z.literal(successCodes[code].statusMessage),
  statusUri: z.literal("").openapi({ description: "Empty on success." }),
});

/**
 * A schema of lib/ to register as a component. Made before extendZodWithOpenApi ran (the server loads the handlers
 * first), it has no `.openapi()` of its own: the copy made here does, with the schema's documentation kept.
 */
export function documented<T extends z.ZodType>(schema: T): T {
  const meta = schema.meta();
  const copy = schema.clone();
  return (meta ? copy.meta(meta) : copy) as T;
}

/**
 * A serializer's schema as the envelope's data: apiVersion first, then its fields, `parts` (registered components)
 * in place of its own; its documentation kept.
 */
export function withData(schema: z.ZodObject, parts: z.ZodRawShape = {}) {
  const data = z.object({ apiVersion, ...schema.shape, ...parts });
  const meta = schema.meta();
  return meta ? data.meta(meta) : data;
}

/**
 * A query's answer: the success envelope around `schema` as its data (see withData). `echoesQuery`: the data also
 * carries the query's parameters as given, as strings.
 */
export function queryAnswer(schema: z.ZodObject, parts: z.ZodRawShape, options: { echoesQuery?: boolean } = {}) {
  const data = withData(schema, parts);
  return z.object({
    ...envelopeOf("QueryCompletedSuccessfully"),
    data: options.echoesQuery
      ? data.catchall(z.string()).openapi({ description: "The query parameters as given (strings), plus the page." })
      : data,
  });
}

export const requestIdHeader = z.object({
  "x-request-id": z
    .string()
    .openapi({ description: "The request's id, also in the server's log; quote it when reporting a problem." }),
});

export const rateLimitHeaders = requestIdHeader.extend({
  "retry-after": z
    .string()
    .openapi({ description: "Whole seconds to wait before the key's next request is let in.", example: "1" }),
});
