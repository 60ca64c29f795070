// Replaced by the full generator.
export function buildOpenApiDocument(): Record<string, unknown> {
  return { openapi: "3.1.0", info: { title: "Parley v3", version: "3" }, paths: {} };
}
