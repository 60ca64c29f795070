// Generates one Prisma client per provider from the one schema (a generated client is tied to one provider).
// The PostgreSQL schema is derived by replacing the provider and output lines. Prisma 7's CLI insists on a
// schema engine binary even for `generate`, which does not use it; a no-op script satisfies it offline.
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const source = join(root, "prisma/schema.prisma");
const pgDir = join(root, "prisma/postgresql");
const pgSchema = join(pgDir, "schema.prisma");
const noEngine = join(root, "scripts/no-schema-engine.sh");

const text = readFileSync(source, "utf8");
const derived = text
  .replace('provider = "sqlite"', 'provider = "postgresql"')
  .replace('output       = "../lib/db/generated/sqlite"', 'output       = "../../lib/db/generated/postgresql"');
if (derived === text || !derived.includes("generated/postgresql")) {
  throw new Error("prisma-generate: could not derive the PostgreSQL schema (provider or output line changed?)");
}
mkdirSync(pgDir, { recursive: true });
writeFileSync(pgSchema, "// Generated from ../schema.prisma by scripts/prisma-generate.mjs; do not edit.\n" + derived);
chmodSync(noEngine, 0o755);

const env = {
  ...process.env,
  PRISMA_SCHEMA_ENGINE_BINARY: noEngine,
  PRISMA_HIDE_UPDATE_MESSAGE: "1",
  CHECKPOINT_DISABLE: "1",
};
const prisma = join(root, "node_modules/.bin/prisma");
for (const schema of [source, pgSchema]) {
  execFileSync(prisma, ["generate", "--schema", schema], { cwd: root, env, stdio: ["ignore", "ignore", "inherit"] });
}
console.log("prisma: generated the sqlite and postgresql clients");
