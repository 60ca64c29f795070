import { expect, signInPortal, test } from "../helpers/browser-test";
import { startServer, type RunningServer } from "../helpers/server";
import { createDemoAccount, type DemoCredentials } from "../helpers/cli";

// Search as staff use it: a word from an old message found from the conversation list, shown with the words
// around it, opening the thread at that message; a number typed as it is displayed; a long thread read further
// back by scrolling up.
let server: RunningServer;
let demo: DemoCredentials;
const phone = "14155550123";
const THREAD = 150;

test.beforeAll(async () => {
  server = await startServer();
  demo = await createDemoAccount(server.database.url);
  for (let i = 0; i < THREAD; i++) {
    const body = i === 5 ? "Your parcel Zebracorn-7 waits at the depot on Elm Street" : `Update number ${i}`;
    const response = await fetch(`${server.baseUrl}/v3/messages`, {
      method: "POST",
      headers: { apikey: demo.apiKey, "content-type": "application/json" },
      body: JSON.stringify({ accountId: demo.accountId, from: demo.numbers[0], to: phone, body, conversational: true }),
    });
    expect(response.status).toBe(200);
  }
});

test.afterAll(async () => {
  await server?.stop();
});

test("a word of an old message is found from the list and opens the thread at it", async ({ page }) => {
  await signInPortal(page, server.baseUrl, demo.email, demo.password);
  await page.goto(`${server.baseUrl}/conversations`);
  await page.getByRole("searchbox", { name: "Search conversations" }).fill("zebracorn");
  const hits = page.getByRole("list", { name: "Matching messages" });
  const hit = hits.getByRole("link", { name: /Your parcel Zebracorn-7 waits/ });
  await expect(hit).toBeVisible();
  await expect(hit.locator("mark")).toHaveText("Zebracorn");
  await page.screenshot({ path: "test-results/screens/search-results.png", fullPage: true });
  await hit.click();

  const marked = page.getByRole("list", { name: "Messages" }).locator('li[aria-current="true"]');
  await expect(marked).toContainText("Zebracorn-7");
  await expect(marked).toBeInViewport();
  // From a little before it to the newest.
  await expect(
    page.getByRole("list", { name: "Messages" }).getByText("Update number 0", { exact: true }),
  ).toBeAttached();
  await expect(
    page.getByRole("list", { name: "Messages" }).getByText(`Update number ${THREAD - 1}`, { exact: true }),
  ).toBeAttached();
});

test("a number typed as it is displayed finds its conversation", async ({ page }) => {
  await signInPortal(page, server.baseUrl, demo.email, demo.password);
  await page.goto(`${server.baseUrl}/conversations`);
  await page.getByRole("searchbox", { name: "Search conversations" }).fill("(415) 555-0123");
  await expect(page.getByRole("list", { name: "Matching numbers" }).getByRole("link")).toHaveCount(1);
  await expect(page.getByRole("list", { name: "Conversations" }).getByRole("link")).toHaveCount(1);
});

test("a long thread opens at its newest messages and reads older ones when scrolled up", async ({ page }) => {
  await signInPortal(page, server.baseUrl, demo.email, demo.password);
  await page.goto(`${server.baseUrl}/conversations`);
  await page.getByRole("list", { name: "Conversations" }).getByRole("link").first().click();
  const bubbles = page.getByRole("list", { name: "Messages" }).locator("li[data-message-id]");
  await expect(bubbles).toHaveCount(100);
  await expect(bubbles.last()).toContainText(`Update number ${THREAD - 1}`);
  await expect(bubbles.last()).toBeInViewport();
  // Scrolling to the top reads the page before, and the message that was at the top stays in view.
  const topBefore = bubbles.first();
  await expect(topBefore).toContainText(`Update number ${THREAD - 100}`);
  await page.getByRole("log", { name: "Messages" }).evaluate((log) => (log.scrollTop = 0));
  await expect(bubbles).toHaveCount(THREAD);
  await expect(bubbles.first()).toContainText("Update number 0");
  await expect(page.getByRole("button", { name: "Load older messages" })).toHaveCount(0);
  await expect(
    page.getByRole("list", { name: "Messages" }).getByText(`Update number ${THREAD - 100}`, { exact: true }),
  ).toBeInViewport();
});
