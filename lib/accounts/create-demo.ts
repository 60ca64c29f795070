import { randomBytes } from "node:crypto";
import { db } from "../db/client";
import { createAccount, createApiKey, createUser } from "./manage-accounts";
import { provisionNumber } from "../numbers/manage-numbers";

export interface DemoCredentials {
  accountId: string;
  accountName: string;
  email: string;
  password: string;
  apiKey: string;
  numbers: string[];
}

export const DEMO_NUMBERS = ["+12025550100", "+12025550101"];

/** A ready account to try Parley with: an admin user, two numbers and an API key. */
export async function createDemo(options: { email?: string; name?: string } = {}): Promise<DemoCredentials> {
  const account = await createAccount({ name: options.name ?? "Demo", timeZone: "America/New_York" });
  const taken = new Set((await db().phoneNumber.findMany({ select: { number: true } })).map((n) => `+${n.number}`));
  // A second demo account on the same database gets its own numbers.
  const numbers: string[] = [];
  for (let n = 100; numbers.length < 2 && n < 200; n++) {
    const candidate = `+1202555${String(n).padStart(4, "0")}`;
    if (!taken.has(candidate)) numbers.push(candidate);
  }
  try {
    for (const number of numbers)
      await provisionNumber({ accountId: account.id, number, label: "demo", actor: "system" });
    const defaultTaken = (await db().user.count({ where: { email: "admin@demo.parley" } })) > 0;
    const email = options.email ?? (defaultTaken ? `admin+${account.id.slice(0, 8)}@demo.parley` : "admin@demo.parley");
    const password = randomBytes(12).toString("base64url");
    await createUser({ accountId: account.id, email, password, role: "admin", name: "Demo admin" });
    const { key } = await createApiKey({ accountId: account.id, name: "demo" });
    return { accountId: account.id, accountName: account.name, email, password, apiKey: key, numbers };
  } catch (error) {
    // A demo that failed half-way (an email already in use, say) must not leave an account holding two numbers
    // behind; deleting the account cascades to its numbers, users and keys.
    await db()
      .account.delete({ where: { id: account.id } })
      .catch(() => undefined);
    throw error;
  }
}

/** On an empty database only: creates the demo once and returns its credentials (to print), else null. */
export async function ensureDemo(): Promise<DemoCredentials | null> {
  if ((await db().account.count()) > 0) return null;
  return createDemo();
}

/** How the demo's credentials are shown to a person (the server at first start, the CLI's `demo`). */
export function describeDemo(demo: DemoCredentials, baseUrl: string): string[] {
  const from = demo.numbers[0]?.replace(/^\+/, "") ?? "<from>";
  return [
    `Portal      ${baseUrl}/`,
    `Login       ${demo.email}`,
    `Password    ${demo.password}`,
    `Account id  ${demo.accountId}`,
    `API key     ${demo.apiKey}`,
    `Numbers     ${demo.numbers.join(", ")}`,
    `API docs    ${baseUrl}/docs`,
    "",
    "Try it (with the server running):",
    `  curl -s ${baseUrl}/v3/messages -H 'apikey: ${demo.apiKey}' -H 'content-type: application/json' \\`,
    `    -d '{"accountId":"${demo.accountId}","from":"${from}","to":"14155550123","body":"Hello from Parley"}'`,
  ];
}
