import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";

// Each test file gets a database of its own, on the provider the vitest project names (PARLEY_TEST_DB).
export type TestProvider = "sqlite" | "postgresql";

export function testProvider(): TestProvider {
  return process.env.PARLEY_TEST_DB === "postgresql" ? "postgresql" : "sqlite";
}

const ADMIN_URL = process.env.PARLEY_TEST_PG_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";

export interface TestDatabase {
  provider: TestProvider;
  url: string;
  drop(): Promise<void>;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const provider = testProvider();
  if (provider === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), "parley-test-"));
    return {
      provider,
      url: `file:${join(dir, "parley.db")}`,
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const name = `parley_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  try {
    await admin.connect();
  } catch (error) {
    throw new Error(
      `These tests need PostgreSQL at ${ADMIN_URL} (set PARLEY_TEST_PG_URL to another server): ${(error as Error).message}`,
    );
  }
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    provider,
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: ADMIN_URL });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}
