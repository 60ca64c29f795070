import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const root = join(import.meta.dirname, "..", "..");

/**
 * Runs the admin CLI as an operator would (`npm run parley -- …` runs its bundle, .next/parley/cli.mjs, built by
 * `npm test`'s build step), against the given database.
 */
export async function parley(
  args: string[],
  databaseUrl: string,
  env: Record<string, string> = {},
): Promise<{ stdout: string; stderr: string }> {
  return run(process.execPath, [join(root, ".next/parley/cli.mjs"), ...args], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: "warn", ...env },
  });
}

export interface DemoCredentials {
  accountId: string;
  email: string;
  password: string;
  apiKey: string;
  numbers: string[];
}

export async function createDemoAccount(databaseUrl: string): Promise<DemoCredentials> {
  const { stdout } = await parley(["demo", "--json"], databaseUrl);
  return JSON.parse(stdout) as DemoCredentials;
}

/** Adds a portal user to an account through the CLI (`user create`), with the password given. */
export async function createUser(
  databaseUrl: string,
  user: { accountId: string; email: string; password: string; role: "admin" | "agent"; name?: string },
): Promise<void> {
  const args = ["user", "create", "--account", user.accountId, "--email", user.email, "--role", user.role];
  if (user.name !== undefined) args.push("--name", user.name);
  await parley([...args, "--password", user.password], databaseUrl);
}
