import type { Locator, Page } from "@playwright/test";
import sharp from "sharp";
import { expect, test } from "../helpers/browser-test";
import { startServer, type RunningServer } from "../helpers/server";
import { createDemoAccount, type DemoCredentials } from "../helpers/cli";

// MMS as a new user tries it: a simulated phone sends a photo, staff see it inline in the conversation and answer
// with a photo of their own from the composer, and the phone shows it inline; the carrier (the simulator, which
// fetches the media as an MMS centre does) got a copy under the 600 KB limit, and the message page lists it.

let server: RunningServer;
let demo: DemoCredentials;
const PHONE = "+14155550188";
const digits = (number: string) => number.replace(/^\+/, "");

test.beforeAll(async () => {
  server = await startServer({ env: { PARLEY_WORKER: "true", SIMULATOR_RECEIPT_DELAY_MS: "300" } });
  demo = await createDemoAccount(server.database.url);
});

test.afterAll(async () => {
  await server?.stop();
});

/** A camera-sized photo: 3000×2000 of noise, several MB as JPEG, so it must be made smaller to go as MMS. */
async function photo(color: string): Promise<Buffer> {
  return sharp({
    create: {
      width: 3000,
      height: 2000,
      channels: 3,
      background: color,
      noise: { type: "gaussian", mean: 128, sigma: 50 },
    },
  })
    .jpeg({ quality: 92 })
    .toBuffer();
}

async function signIn(page: Page) {
  await page.goto(server.baseUrl + "/login");
  await page.getByLabel("Email").fill(demo.email);
  await page.getByLabel("Password").fill(demo.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { name: "Dashboard" })).toBeVisible();
}

/** A picture that really loaded (decoded, with a size), named as the portal names a message's picture. */
async function expectPicture(scope: Locator | Page, type: RegExp = /image\/(jpeg|png)/) {
  const image = scope.getByRole("img", { name: new RegExp(`^Attachment 1 \\(${type.source}, [\\d.]+ (KB|MB)\\)$`) });
  await expect(image.first()).toBeVisible();
  await expect(image.first()).toHaveAttribute("src", new RegExp(`^${server.baseUrl}/media/md_[A-Za-z0-9]{24}$`));
  await expect.poll(() => image.first().evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);
  return image.first();
}

async function v3(path: string) {
  const res = await fetch(server.baseUrl + path, { headers: { apikey: demo.apiKey } });
  return (await res.json()) as { data: Record<string, unknown> & { results: Record<string, unknown>[] } };
}

test("a photo from the phone and one from the composer show inline on both sides; the carrier got a fitted copy", async ({
  page,
}) => {
  await signIn(page);
  await page.getByRole("link", { name: "Phone simulator" }).click();
  await page.getByLabel("Phone number").fill(PHONE);
  await page.getByLabel("Account number").selectOption(digits(demo.numbers[0]!));
  await page.getByRole("button", { name: "Open phone" }).click();
  const card = page.getByRole("region", { name: `Phone ${PHONE} texting ${demo.numbers[0]}` });
  await expect(card).toBeVisible();

  // The phone sends a photo with a line of text.
  await expect(card.getByRole("button", { name: "Attach picture" })).toBeVisible();
  await card.getByTestId("attach-picture-input").setInputFiles({
    name: "garden.jpg",
    mimeType: "image/jpeg",
    buffer: await photo("#2a7a3a"),
  });
  await expect(card.getByRole("list", { name: "Pictures to send" }).getByRole("listitem")).toHaveCount(1);
  await card.getByLabel("Text from phone").fill("The garden this morning");
  await card.getByRole("button", { name: "Send from phone" }).click();
  await expect(card.getByText("The garden this morning")).toBeVisible();
  await expectPicture(card);
  await page.screenshot({ path: "test-results/screens/media-phone-sent.png", fullPage: true });

  // Staff see it inline in the conversation.
  await page.getByRole("navigation", { name: "Portal" }).getByRole("link", { name: "Conversations" }).click();
  await page.getByRole("link", { name: new RegExp(`\\${PHONE}`) }).click();
  await expect(page.getByRole("log", { name: "Messages" }).getByText("The garden this morning")).toBeVisible();
  await expectPicture(page.locator("[data-attachments]").first());

  // …and answer with a photo from the composer: previewed, removable, MMS, its size against the limit.
  await expect(page.getByRole("button", { name: "Attach files" })).toBeVisible();
  await page.getByTestId("attach-files-input").setInputFiles([
    { name: "wrong.jpg", mimeType: "image/jpeg", buffer: await photo("#777777") },
    { name: "roses.jpg", mimeType: "image/jpeg", buffer: await photo("#b02040") },
  ]);
  const files = page.getByRole("list", { name: "Files to send" });
  await expect(files.getByRole("listitem")).toHaveCount(2);
  await page.getByRole("button", { name: "Remove wrong.jpg" }).click();
  await expect(files.getByRole("listitem")).toHaveCount(1);
  await expect(files.locator('[data-upload-state="ready"]')).toHaveCount(1);
  await expect(page.getByTestId("message-kind")).toHaveText("MMS");
  await expect(page.getByTestId("media-total")).toContainText("of 5 MB");
  await page.getByRole("textbox", { name: "Message" }).fill("Roses for you");
  await page.getByRole("button", { name: "Send" }).click();
  const bubble = page.getByRole("listitem").filter({ hasText: "Roses for you" });
  await expect(bubble).toBeVisible();
  await expectPicture(bubble);
  await page.screenshot({ path: "test-results/screens/media-conversation.png", fullPage: true });

  // The carrier got the copy fitted under 600 KB, and said what it fetched.
  const listing = `/v3/messages?accountId=${demo.accountId}&direction=outbound&to=${digits(PHONE)}&messageType=mms`;
  await expect
    .poll(async () => (await v3(listing)).data.results[0]?.status, { timeout: 20_000 })
    .toMatch(/^(sent|delivered)$/);
  const outbound = (await v3(listing)).data.results[0]!;
  const mediaUrl = (outbound.media as string[])[0]!;
  const copy = await fetch(mediaUrl);
  const bytes = Buffer.from(await copy.arrayBuffer());
  expect(bytes.length).toBeLessThanOrEqual(600 * 1024);
  expect((await sharp(bytes).metadata()).format).toBe("jpeg");
  const sdrs = await v3(`/v3/sdrs/${demo.accountId}/${outbound.messageId as string}`);
  const sent = sdrs.data.results.find((r) => r.status === "message_sent")!;
  expect(sent.statusDetails).toMatch(/^MMS delivered by the simulator \(media 1: image\/jpeg, \d+ KB\)$/);

  // The phone shows the picture it received.
  await page.getByRole("navigation", { name: "Portal" }).getByRole("link", { name: "Phone simulator" }).click();
  await page.getByLabel("Phone number").fill(PHONE);
  await page.getByLabel("Account number").selectOption(digits(demo.numbers[0]!));
  await page.getByRole("button", { name: "Open phone" }).click();
  const phone = page.getByRole("region", { name: `Phone ${PHONE} texting ${demo.numbers[0]}` });
  const received = phone.getByRole("listitem").filter({ hasText: "Roses for you" });
  await expectPicture(received);
  await page.screenshot({ path: "test-results/screens/media-phone-received.png", fullPage: true });

  // The message page lists the medium with its fitted size.
  await page.goto(`${server.baseUrl}/messages/${outbound.messageId as string}`);
  const row = page.locator("[data-attachment-row]").first();
  await expect(row).toContainText("image/jpeg");
  await expect(row).toContainText(`${Math.round(bytes.length / 1024)} KB`);
});
