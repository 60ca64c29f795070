import type { Browser, Page } from "@playwright/test";
import { expect, signInPortal, test } from "../helpers/browser-test";
import { startServer, type RunningServer } from "../helpers/server";
import { createDemoAccount, createUser, parley, type DemoCredentials } from "../helpers/cli";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database";

// Presence across processes: two staff members on two servers (one PostgreSQL database, told of each other through
// Redis) open the same conversation; each sees the other viewing it and typing in it, and a reply one sends while
// the other writes appears in the other's thread before they send.
const REDIS_URL = process.env.PARLEY_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const phone = "+14155550177";

let database: TestDatabase;
let a: RunningServer;
let b: RunningServer;
let demo: DemoCredentials;
const ana = { email: "ana@demo.parley", password: "ana password 1", name: "Ana Lima" };
const ben = { email: "ben@demo.parley", password: "ben password 1", name: "Ben Okafor" };

test.beforeAll(async () => {
  const previous = process.env.PARLEY_TEST_DB;
  process.env.PARLEY_TEST_DB = "postgresql";
  database = await createTestDatabase();
  process.env.PARLEY_TEST_DB = previous;
  const env = { REDIS_URL, PARLEY_WORKER: "false" };
  [a, b] = await Promise.all([startServer({ database, env }), startServer({ database, env })]);
  demo = await createDemoAccount(database.url);
  for (const user of [ana, ben]) await createUser(database.url, { accountId: demo.accountId, role: "agent", ...user });
  const to = `+${demo.numbers[0]!.replace("+", "")}`;
  await parley(["inbound", "--from", phone, "--to", to, "--body", "Is my order on its way?"], database.url, {
    REDIS_URL,
  });
});

test.afterAll(async () => {
  await a?.stop();
  await b?.stop();
  await database?.drop();
});

async function openThread(browser: Browser, server: RunningServer, user: typeof ana): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await signInPortal(page, server.baseUrl, user.email, user.password);
  await page.goto(`${server.baseUrl}/conversations`);
  await page.getByRole("link", { name: /\+1 ?\(?415\)? ?555-?0177|\+14155550177/ }).click();
  await expect(page.getByRole("textbox", { name: "Message" })).toBeVisible();
  return page;
}

test("two staff members on two servers see each other viewing and typing, and each other's replies at once", async ({
  browser,
}) => {
  test.setTimeout(90_000);
  const anaPage = await openThread(browser, a, ana);
  const benPage = await openThread(browser, b, ben);
  const anaHeader = anaPage.getByRole("list", { name: "Also in this conversation" });
  const benHeader = benPage.getByRole("list", { name: "Also in this conversation" });

  await expect(anaHeader.getByText("Ben Okafor is viewing")).toBeVisible();
  await expect(benHeader.getByText("Ana Lima is viewing")).toBeVisible();
  // Nobody is told they are viewing themselves.
  await expect(anaPage.getByText("Ana Lima is viewing")).toHaveCount(0);

  await benPage.getByRole("textbox", { name: "Message" }).pressSequentially("Let me check", { delay: 20 });
  await expect(anaHeader.getByText("Ben Okafor is typing…")).toBeVisible();
  await benPage.getByRole("textbox", { name: "Message" }).fill("");
  await expect(anaHeader.getByText("Ben Okafor is viewing")).toBeVisible();

  // Ana drafts an answer; Ben's reply, sent meanwhile, shows up in Ana's thread while her draft stays hers.
  await anaPage.getByRole("textbox", { name: "Message" }).pressSequentially("Hello! It", { delay: 20 });
  await expect(benHeader.getByText("Ana Lima is typing…")).toBeVisible();
  await benPage.getByRole("textbox", { name: "Message" }).fill("It left the warehouse this morning.");
  await benPage.getByRole("button", { name: "Send" }).click();
  const anaBubbles = anaPage.getByRole("list", { name: "Messages" });
  await expect(anaBubbles.getByText("It left the warehouse this morning.")).toBeVisible();
  await expect(anaPage.getByRole("textbox", { name: "Message" })).toHaveValue("Hello! It");
  await anaPage.screenshot({ path: "test-results/screens/presence-typing.png", fullPage: true });

  // Ana stops typing (idle), then Ben leaves the conversation: Ana's header empties.
  await expect(benHeader.getByText("Ana Lima is viewing")).toBeVisible({ timeout: 15_000 });
  // (The list is beside the thread on this wide screen: the sidebar leads back to it.)
  await benPage.getByRole("navigation", { name: "Portal" }).getByRole("link", { name: "Conversations" }).click();
  await expect(anaHeader).toHaveCount(0);
  await benPage.context().close();
  await anaPage.context().close();
});
