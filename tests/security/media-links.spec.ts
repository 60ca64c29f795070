import type { Locator, Page } from "@playwright/test";
import { expect, signInPortal, test } from "../helpers/browser-test";
import { startServer, type RunningServer } from "../helpers/server";
import { createDemoAccount, type DemoCredentials } from "../helpers/cli";
import { reloadEnv } from "../../lib/env";
import { db, disconnectDb } from "../../lib/db/client";
import { uuidv4, uuidv7 } from "../../lib/db/ids";

// Media stored before the http(s) rule existed (or by any path that missed it) is written straight into the
// database here: the portal must show javascript: and data: URLs as text, never as a link or an image, on the
// message page, in the conversation thread and on the phone simulator.

let server: RunningServer;
let demo: DemoCredentials;
const phone = "14155550199";
let messageId: string;
let conversationId: string;

const SAFE = "https://files.example.com/menu.pdf";
const UNSAFE = [
  "javascript:alert(document.domain)",
  "JAVASCRIPT:alert(2)//photo.png",
  " javascript:alert(3)",
  "data:text/html,<script>alert(4)</script>",
  "vbscript:msgbox(5)",
];

test.beforeAll(async () => {
  server = await startServer();
  demo = await createDemoAccount(server.database.url);
  process.env.DATABASE_URL = server.database.url;
  reloadEnv();
  const accountNumber = demo.numbers[0]!.replace(/^\+/, "");
  const at = new Date();
  conversationId = uuidv4();
  messageId = uuidv7(at.getTime());
  await db().conversation.create({
    data: {
      id: conversationId,
      accountId: demo.accountId,
      accountNumber,
      remoteNumber: phone,
      lastMessageAt: at,
      createdAt: at,
    },
  });
  await db().message.create({
    data: {
      id: messageId,
      accountId: demo.accountId,
      direction: "inbound",
      messageType: "mms",
      fromNumber: phone,
      toNumber: accountNumber,
      body: "Look at these",
      media: JSON.stringify([...UNSAFE, SAFE]),
      numSegments: 1,
      encoding: "GSM7",
      status: "",
      conversational: true,
      conversationId,
      createdAt: at,
      updatedAt: at,
    },
  });
  await disconnectDb();
});

test.afterAll(async () => {
  await server?.stop();
});

async function signIn(page: Page): Promise<void> {
  await signInPortal(page, server.baseUrl, demo.email, demo.password);
  await expect(page.getByRole("heading", { name: "Dashboard" })).toBeVisible();
}

/** Every href and src in the page: each must be http(s), or a path or fragment of the portal itself. */
async function expectOnlySafeAddresses(page: Page) {
  const addresses = await page.evaluate(() =>
    [...document.querySelectorAll("[href], [src], [action], [formaction]")].flatMap((el) =>
      ["href", "src", "action", "formaction"]
        .map((name) => el.getAttribute(name))
        .filter((value): value is string => value !== null),
    ),
  );
  expect(addresses.length).toBeGreaterThan(0);
  const unsafe = addresses.filter((value) => !/^(https?:\/\/|\/(?!\/)|#|\?)/i.test(value));
  expect(unsafe).toEqual([]);
}

/** The stored URLs shown in `area`: the safe one as a link that opens apart, the others as text only. */
async function expectMediaShownSafely(area: Locator) {
  for (const url of UNSAFE) await expect(area.getByText(url.trim(), { exact: false })).toBeVisible();
  await expect(area.locator("img")).toHaveCount(0);
  const links = area.getByRole("link");
  await expect(links).toHaveCount(1);
  await expect(links).toHaveAttribute("href", SAFE);
  await expect(links).toHaveAttribute("target", "_blank");
  await expect(links).toHaveAttribute("rel", "noopener noreferrer");
  await expect(area.locator("[data-unsafe-url]")).toHaveCount(UNSAFE.length);
}

test("stored javascript: and data: media are text, not links, wherever the portal shows the message", async ({
  page,
}) => {
  const dialogs: string[] = [];
  page.on("dialog", (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  await signIn(page);

  await page.goto(`${server.baseUrl}/messages/${messageId}`);
  await expect(page.getByRole("heading", { name: "Media" })).toBeVisible();
  const mediaList = page.getByRole("heading", { name: "Media" }).locator("xpath=following-sibling::ul[1]");
  await expectMediaShownSafely(mediaList);
  await expectOnlySafeAddresses(page);
  await mediaList.getByText(UNSAFE[0]!).click();
  await page.screenshot({ path: "test-results/screens/security-media-message.png", fullPage: true });

  await page.goto(`${server.baseUrl}/conversations/${conversationId}`);
  const bubble = page.locator(`[data-message-id="${messageId}"]`);
  await expect(bubble).toContainText("Look at these");
  await expectMediaShownSafely(bubble);
  await expectOnlySafeAddresses(page);
  await bubble.getByText(UNSAFE[0]!).click();
  await page.screenshot({ path: "test-results/screens/security-media-thread.png", fullPage: true });

  // The composer checks with the same rule before anything is sent, and names the line.
  await page.getByRole("button", { name: "Add media" }).click();
  await page.getByLabel("Media URLs (one per line)").fill(`${SAFE}\ndata:text/html,<b>hi</b>`);
  await page.getByPlaceholder(/Write a reply/).fill("Here you go");
  await page.getByRole("button", { name: "Send", exact: true }).click();
  await expect(
    page.getByText("Media URL 2 must be an http:// or https:// URL (the scheme data: is not allowed)"),
  ).toBeVisible();
  await expect(page.locator("[data-message-id]")).toHaveCount(1);
  await page.screenshot({ path: "test-results/screens/security-media-composer.png", fullPage: true });

  await page.goto(`${server.baseUrl}/simulator`);
  await page.getByLabel("Phone number").fill(`+${phone}`);
  await page.getByLabel("Account number").selectOption(demo.numbers[0]!.replace(/^\+/, ""));
  await page.getByRole("button", { name: "Open phone" }).click();
  const card = page.getByRole("region", { name: `Phone +${phone} texting ${demo.numbers[0]}` });
  const sent = card.getByRole("listitem").filter({ hasText: "Look at these" });
  await expect(sent).toBeVisible();
  await expectMediaShownSafely(sent);
  await expectOnlySafeAddresses(page);
  await page.screenshot({ path: "test-results/screens/security-media-simulator.png", fullPage: true });

  expect(dialogs).toEqual([]);
});
