#!/usr/bin/env bash
# Writes the SQL migration for each provider from the change to prisma/schema.prisma since a git revision:
#   scripts/new-migration.sh <name> [base-rev]     (base-rev defaults to HEAD; "empty" for the first migration)
# Prisma 7's migrate engine is a download that offline machines cannot fetch; Prisma 6.19.3's WebAssembly engine,
# installed once into a cache folder, computes the same diff with no network. Review the SQL before committing.
set -euo pipefail
name=${1:?usage: scripts/new-migration.sh <name> [base-rev|empty]}
base=${2:-HEAD}
root=$(cd "$(dirname "$0")/.." && pwd)
tool=${PARLEY_MIGRATION_TOOL_DIR:-$HOME/.cache/parley-migration-tool}
if [ ! -x "$tool/node_modules/.bin/prisma" ]; then
  mkdir -p "$tool"
  (cd "$tool" && echo '{"private":true}' > package.json &&
    npm install --no-audit --no-fund --silent prisma@6.19.3 @prisma/adapter-better-sqlite3@6.19.3 @prisma/adapter-pg@6.19.3)
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
stamp=$(date -u +%Y%m%d%H%M%S)
touch "$work/no-query-engine"
export PRISMA_ENGINES_CHECKSUM_IGNORE_MISSING=1 PRISMA_QUERY_ENGINE_LIBRARY="$work/no-query-engine"
export PRISMA_SCHEMA_ENGINE_BINARY="$root/scripts/no-schema-engine.sh" PRISMA_HIDE_UPDATE_MESSAGE=1 CHECKPOINT_DISABLE=1
for provider in sqlite postgresql; do
  to_schema() { # schema text on stdin → v6-compatible schema for $provider (no generator, url from env)
    sed -e '/^generator client/,/^}/d' -e "s/provider = \"sqlite\"/provider = \"$provider\"\n  url = env(\"DATABASE_URL\")/"
  }
  to_schema < "$root/prisma/schema.prisma" > "$work/$provider-new.prisma"
  if [ "$base" = empty ]; then from=(--from-empty); else
    git -C "$root" show "$base:prisma/schema.prisma" | to_schema > "$work/$provider-old.prisma"
    from=(--from-schema-datamodel "$work/$provider-old.prisma")
  fi
  if [ "$provider" = sqlite ]; then
    export DATABASE_URL="file:$work/scratch.db"
    adapter="new (await import('@prisma/adapter-better-sqlite3')).PrismaBetterSQLite3({ url: process.env.DATABASE_URL })"
  else
    # The diff reads nothing from it, but the adapter must connect somewhere.
    export DATABASE_URL="${PARLEY_MIGRATION_PG_URL:-postgresql://postgres@127.0.0.1:5432/postgres}"
    adapter="new (await import('@prisma/adapter-pg')).PrismaPg({ connectionString: process.env.DATABASE_URL })"
  fi
  cat > "$tool/prisma.config.ts" <<CFG
import { defineConfig } from "prisma/config";
export default defineConfig({ experimental: { adapter: true }, engine: "js", adapter: async () => $adapter } as never);
CFG
  out="$root/prisma/migrations/$provider/${stamp}_$name"
  mkdir -p "$out"
  (cd "$tool" && ./node_modules/.bin/prisma migrate diff --config prisma.config.ts "${from[@]}" \
    --to-schema-datamodel "$work/$provider-new.prisma" --script) | grep -v '^-- CreateSchema' | grep -v 'CREATE SCHEMA IF NOT EXISTS' > "$out/migration.sql"
  echo "wrote ${out#$root/}/migration.sql"
done
