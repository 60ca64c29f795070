// Prisma CLI configuration. The CLI is only used for `prisma generate` (see scripts/prisma-generate.mjs);
// migrations are committed SQL applied by lib/db/migrate.ts.
import { defineConfig } from "prisma/config";

export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations/sqlite" },
});
