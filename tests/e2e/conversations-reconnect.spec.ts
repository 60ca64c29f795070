import { createServer } from "node:net";
import { expect, test } from "../helpers/browser-test";
import { startServer, type RunningServer } from "../helpers/server";
import { createDemoAccount, parley, type DemoCredentials } from "../helpers/cli";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database";

// Reconnect is a first-class path: after a network drop or a server restart the page asks for every change after
// the last position it applied, through the same reducer as live events: nothing missed, nothing doubled.
let database: TestDatabase;
let server: RunningServer;
let demo: DemoCredentials;
let port: number;
const PHONE = "+14155550163";

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

const start = () => startServer({ database, env: { PORT: String(port) } });
const inbound = (body: string) =>
  parley(["inbound", "--from", PHONE, "--to", `+${demo.numbers[0]!.replace(/^\+/, "")}`, "--body", body], database.url);

test.beforeAll(async () => {
  database = await createTestDatabase();
  port = await freePort();
  server = await start();
  demo = await createDemoAccount(database.url);
});

test.afterAll(async () => {
  await server?.stop();
  await database?.drop();
});

test("a dropped network and a restarted server catch up without duplicates", async ({ page, context }) => {
  test.setTimeout(120_000);
  await inbound("First");
  await page.goto(`${server.baseUrl}/login`);
  await page.getByLabel("Email").fill(demo.email);
  await page.getByLabel("Password").fill(demo.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).not.toHaveURL(/\/login/);
  await page.goto(`${server.baseUrl}/conversations`);
  await page.getByRole("link", { name: /\+14155550163/ }).click();
  const bubbles = page.getByRole("list", { name: "Messages" }).locator("li[data-message-id]");
  await expect(bubbles.filter({ hasText: "First" })).toBeVisible();

  // The network drops: the page says so, and what arrived meanwhile shows once it is back.
  await context.setOffline(true);
  await page.evaluate(() => window.dispatchEvent(new Event("offline")));
  await inbound("While offline");
  await context.setOffline(false);
  await expect(bubbles.filter({ hasText: "While offline" })).toBeVisible({ timeout: 30_000 });
  await expect(bubbles).toHaveCount(2);

  // The server stops; a message arrives through the CLI while it is down; a new server starts on the same port.
  await server.stop();
  await expect(page.getByText("Reconnecting…")).toBeVisible({ timeout: 10_000 });
  await page.screenshot({ path: "test-results/screens/conversation-reconnecting.png", fullPage: true });
  await inbound("While the server was down");
  server = await start();
  await expect(bubbles.filter({ hasText: "While the server was down" })).toBeVisible({ timeout: 30_000 });
  await expect(page.getByText("Reconnecting…")).toHaveCount(0);
  await expect(bubbles).toHaveCount(3);
  // And live again after the catch-up.
  await inbound("After the restart");
  await expect(bubbles.filter({ hasText: "After the restart" })).toBeVisible({ timeout: 3_000 });
  await expect(bubbles).toHaveCount(4);
  for (const text of ["First", "While offline", "While the server was down", "After the restart"])
    await expect(bubbles.filter({ hasText: text })).toHaveCount(1);
});
