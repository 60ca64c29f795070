import { expect, test } from "../helpers/browser-test";
import { startServer, type RunningServer } from "../helpers/server";
import { createDemoAccount, parley, type DemoCredentials } from "../helpers/cli";
import { startWorker, killAllWorkers, type WorkerProcess } from "../helpers/worker-process";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database";

// Two servers and a separate worker on one PostgreSQL database, told of each other's changes through Redis or
// PostgreSQL's own adapter: a browser on server A sees a message sent through server B, and its delivery ticks
// written by the worker.
const REDIS_URL = process.env.PARLEY_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

// With REDIS_URL, and on PostgreSQL alone (REALTIME_PG_ADAPTER): the same scenario through each fan-out.
const fanOuts: { name: string; env: Record<string, string> }[] = [
  { name: "Redis", env: { REDIS_URL } },
  { name: "the PostgreSQL adapter", env: { REALTIME_PG_ADAPTER: "true" } },
];

for (const fanOut of fanOuts) {
  test.describe(`through ${fanOut.name}`, () => {
    let database: TestDatabase;
    let a: RunningServer;
    let b: RunningServer;
    let worker: WorkerProcess;
    let demo: DemoCredentials;

    test.beforeAll(async () => {
      const previous = process.env.PARLEY_TEST_DB;
      process.env.PARLEY_TEST_DB = "postgresql";
      database = await createTestDatabase();
      process.env.PARLEY_TEST_DB = previous;
      const env = { ...fanOut.env, PARLEY_WORKER: "false" };
      a = await startServer({ database, env });
      b = await startServer({ database, env });
      worker = await startWorker(database.url, { ...fanOut.env, SIMULATOR_RECEIPT_DELAY_MS: "1000" });
      demo = await createDemoAccount(database.url);
    });

    test.afterAll(async () => {
      await worker?.stop();
      await killAllWorkers();
      await a?.stop();
      await b?.stop();
      await database?.drop();
    });

    test("a browser on server A sees a message that went through server B, and its delivery ticks", async ({
      page,
    }) => {
      test.setTimeout(90_000);
      const from = demo.numbers[0]!.replace("+", "");
      await parley(
        ["inbound", "--from", "+14155550155", "--to", `+${from}`, "--body", "Hi from the phone"],
        database.url,
        fanOut.env,
      );
      await page.goto(`${a.baseUrl}/login`);
      await page.getByLabel("Email").fill(demo.email);
      await page.getByLabel("Password").fill(demo.password);
      await page.getByRole("button", { name: "Sign in" }).click();
      await expect(page).not.toHaveURL(/\/login/);
      await page.goto(`${a.baseUrl}/conversations`);
      await page.getByRole("link", { name: /\+14155550155/ }).click();
      const bubbles = page.getByRole("list", { name: "Messages" }).locator("li[data-message-id]");
      await expect(bubbles.filter({ hasText: "Hi from the phone" })).toBeVisible();

      const sent = await fetch(`${b.baseUrl}/v3/messages`, {
        method: "POST",
        headers: { apikey: demo.apiKey, "content-type": "application/json" },
        body: JSON.stringify({
          accountId: demo.accountId,
          from,
          to: "14155550155",
          body: "Sent through server B",
          conversational: true,
          userId: "crm-42",
          userType: "integration",
        }),
      });
      expect(sent.status).toBe(200);
      const bubble = bubbles.filter({ hasText: "Sent through server B" });
      await expect(bubble).toBeVisible({ timeout: 2_000 });
      await expect(bubble).toContainText("integration crm-42");
      await expect(bubble.locator("[data-state=delivered]")).toBeVisible({ timeout: 15_000 });

      await parley(
        ["inbound", "--from", "+14155550155", "--to", `+${from}`, "--body", "Thanks!"],
        database.url,
        fanOut.env,
      );
      await expect(bubbles.filter({ hasText: "Thanks!" })).toBeVisible({ timeout: 1_000 });
      await expect(bubbles).toHaveCount(3);
      await page.screenshot({
        path: `test-results/screens/conversation-scale-out-${fanOut.env.REDIS_URL ? "redis" : "pg"}.png`,
        fullPage: true,
      });
    });
  });
}
