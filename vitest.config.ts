import { defineConfig } from "vitest/config";
import { fileURLToPath } from "node:url";

// Unit tests run once; API tests run against the real server on SQLite and again on PostgreSQL; the fault suite
// (tests/faults/) runs on a PostgreSQL cluster of its own. The security suite's HTTP tests (tests/security/*.test.ts)
// run with the API tests, on both databases; its browser tests (*.spec.ts) with Playwright.
export default defineConfig({
  resolve: { alias: { "@": fileURLToPath(new URL(".", import.meta.url)) } },
  test: {
    globalSetup: ["tests/helpers/build-bundles.ts"],
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 90_000,
    projects: [
      { extends: true, test: { name: "unit", include: ["tests/unit/**/*.test.ts"] } },
      { extends: true, test: { name: "integration", include: ["tests/integration/**/*.test.ts"] } },
      { extends: true, test: { name: "faults", include: ["tests/faults/**/*.test.ts"] } },
      {
        extends: true,
        test: {
          name: "api-sqlite",
          include: ["tests/api/**/*.test.ts", "tests/security/**/*.test.ts"],
          env: { PARLEY_TEST_DB: "sqlite" },
        },
      },
      {
        extends: true,
        test: {
          name: "api-postgresql",
          include: ["tests/api/**/*.test.ts", "tests/security/**/*.test.ts"],
          env: { PARLEY_TEST_DB: "postgresql" },
        },
      },
    ],
  },
});
