import { buildOpenApiDocument } from "@/lib/api/openapi";

// GET /v3/openapi.json: the OpenAPI 3.1 description of the v3 API, generated from the request schemas.
export async function GET(): Promise<Response> {
  return new Response(JSON.stringify(buildOpenApiDocument()), {
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "public, max-age=300" },
  });
}
