import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

// Every admin API route, found by walking the source tree, so that a route added later is covered by the suites
// that go through them all (roles, cross-site requests) without editing them.

const root = join(import.meta.dirname, "..", "..");
const adminRoot = join(root, "app", "api", "admin", "accounts", "[accountId]");
/** What stands for every path parameter below the account: no such resource exists. */
export const someId = "00000000-0000-4000-8000-000000000000";

export interface AdminRoute {
  path: (accountId: string) => string;
  file: string;
  methods: string[];
  agents: boolean;
}

export function adminRoutes(): AdminRoute[] {
  const found: AdminRoute[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const full = join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (name === "route.ts") {
        const source = readFileSync(full, "utf8");
        const methods = [...source.matchAll(/export const (GET|POST|PUT|PATCH|DELETE)\b/g)].map((m) => m[1]!);
        const rest = relative(adminRoot, dir)
          .split("/")
          .filter(Boolean)
          .map((segment) => (segment.startsWith("[") ? someId : segment))
          .join("/");
        found.push({
          path: (accountId) => `/api/admin/accounts/${accountId}${rest ? `/${rest}` : ""}`,
          file: relative(root, full),
          methods,
          agents: /agents:\s*true/.test(source),
        });
      }
    }
  };
  walk(adminRoot);
  return found;
}
