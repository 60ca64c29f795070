import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { deflateSync } from "node:zlib";
import type { Page } from "@playwright/test";
import { expect, signInPortal, test, type CspWatch } from "../helpers/browser-test";
import { startServer, type RunningServer } from "../helpers/server";
import { createDemoAccount, parley, type DemoCredentials } from "../helpers/cli";

// The portal under its Content-Security-Policy in Chromium, against what a hostile page or hostile markup tries:
// a page of another origin (another port of the same host, and another host) framing a signed-in portal page, and
// markup injected into a portal page trying to run script. And what the policy must still allow: an MMS picture
// hosted elsewhere shows in the conversation view, and the API docs page works.

let server: RunningServer;
let demo: DemoCredentials;
let other: { server: Server; port: number };
const PHONE = "+14155550177";

/** A 16×16 PNG of one colour, as a carrier's media server would host a picture. */
function picture(): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (bytes: Buffer) => {
    let c = 0xffffffff;
    for (const byte of bytes) c = crcTable[(c ^ byte) & 0xff]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const check = Buffer.alloc(4);
    check.writeUInt32BE(crc(body));
    return Buffer.concat([length, body, check]);
  };
  const size = 16;
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: size }, () => [79, 70, 229]).flat())]);
  const pixels = deflateSync(Buffer.concat(Array.from({ length: size }, () => row)));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", pixels),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

/** Another origin: a page that frames whatever `?src=` names, and a picture. */
async function startOtherOrigin(): Promise<{ server: Server; port: number }> {
  const png = picture();
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://other");
    if (url.pathname === "/picture.png") {
      res.writeHead(200, { "content-type": "image/png", "content-length": String(png.length) });
      res.end(png);
      return;
    }
    const src = (url.searchParams.get("src") ?? "").replace(/"/g, "&quot;");
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(
      `<!doctype html><title>Win a prize</title><h1>A page that frames Parley</h1>` +
        `<iframe src="${src}" width="900" height="600"></iframe>`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

test.beforeAll(async () => {
  [server, other] = await Promise.all([startServer(), startOtherOrigin()]);
  demo = await createDemoAccount(server.database.url);
});

test.afterAll(async () => {
  await server?.stop();
  await new Promise((resolve) => other?.server.close(resolve));
});

async function signIn(page: Page): Promise<void> {
  await signInPortal(page, server.baseUrl, demo.email, demo.password);
  await expect(page.getByRole("heading", { name: "Dashboard" })).toBeVisible();
}

/** Waits until the violations seen match `pattern`; answers all of them (taken, so the test does not fail). */
async function violationsMatching(csp: CspWatch, pattern: RegExp): Promise<string> {
  const seen: string[] = [];
  await expect.poll(() => (seen.push(...csp.take()), seen.join("\n")), { timeout: 5_000 }).toMatch(pattern);
  return seen.join("\n");
}

test("a page of another origin cannot frame a signed-in portal page", async ({ page, csp }) => {
  await signIn(page);
  // Another port of the same host (same-site: the session cookie goes along) and another host name.
  for (const origin of [`http://127.0.0.1:${other.port}`, `http://localhost:${other.port}`]) {
    const target = `${server.baseUrl}/conversations`;
    await page.goto(`${origin}/?src=${encodeURIComponent(target)}`);
    await expect(page.getByRole("heading", { name: "A page that frames Parley" })).toBeVisible();
    // The browser refuses to show the answer in the frame: an error page takes its place.
    const framed = () => page.frames().find((frame) => frame !== page.mainFrame());
    await expect.poll(() => framed()?.url(), { timeout: 10_000 }).toMatch(/^chrome-error:/);
    await expect(page.frameLocator("iframe").getByRole("heading", { name: "Conversations" })).toHaveCount(0);
    await expect(page.frameLocator("iframe").getByRole("button", { name: "Sign out" })).toHaveCount(0);
    expect(await violationsMatching(csp, /frame-ancestors/), origin).toContain(target.replace(/\/conversations$/, ""));
  }
  await page.screenshot({ path: "test-results/screens/csp-framing-refused.png" });
});

test("markup injected into a portal page runs no script", async ({ page, csp }) => {
  await signIn(page);
  // An inline event handler and a javascript: link, as an HTML injection would bring them.
  await page.evaluate(() => {
    document.body.insertAdjacentHTML(
      "beforeend",
      `<img alt="" src="data:," onerror="window.__injected = 'onerror'">` +
        `<a id="injected-link" href="javascript:window.__injected = 'link'">a prize</a>`,
    );
  });
  await page.locator("#injected-link").click();
  const violations = await violationsMatching(
    csp,
    /script-src-attr[\s\S]*script-src-elem|script-src-elem[\s\S]*script-src-attr/,
  );
  expect(violations).toContain("inline");
  expect(await page.evaluate(() => (window as unknown as { __injected?: string }).__injected)).toBeUndefined();

  // A <script> element written into the document by the parser, without this page's nonce.
  await page.evaluate(() => {
    document.open();
    document.write("<p>replaced</p><script>window.__injected = 'script'</scr" + "ipt>");
    document.close();
  });
  await expect(page.getByText("replaced")).toBeVisible();
  // document.open() drops the document's listeners: the console message is what reports this one.
  await violationsMatching(csp, /Executing inline script violates/);
  expect(await page.evaluate(() => (window as unknown as { __injected?: string }).__injected)).toBeUndefined();
});

test("an MMS picture hosted elsewhere shows in the live conversation view, from Parley's copy", async ({ page }) => {
  const media = `http://127.0.0.1:${other.port}/picture.png`;
  await parley(
    [
      "inbound",
      "--from",
      PHONE,
      "--to",
      `+${demo.numbers[0]!.replace(/^\+/, "")}`,
      "--body",
      "Here it is",
      "--media",
      media,
    ],
    server.database.url,
    // Parley copies the picture from the other origin (a loopback address here) and names it at its own address.
    { MEDIA_ALLOW_PRIVATE: "true", PUBLIC_URL: server.baseUrl },
  );
  await signIn(page);
  await page.goto(server.baseUrl + "/conversations");
  await page.getByRole("link", { name: /\+14155550177/ }).click();
  const image = page.getByRole("img", { name: /^Attachment 1 \(image\/png, / });
  await expect(image).toBeVisible();
  await expect(image).toHaveAttribute("src", new RegExp(`^${server.baseUrl}/media/md_[A-Za-z0-9]{24}$`));
  await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(16);
  // The socket (same origin, websocket or polling) brings a new message without a reload.
  await parley(
    ["inbound", "--from", PHONE, "--to", `+${demo.numbers[0]!.replace(/^\+/, "")}`, "--body", "Got it?"],
    server.database.url,
  );
  await expect(page.getByRole("log", { name: "Messages" }).getByText("Got it?")).toBeVisible({ timeout: 5_000 });
  await page.screenshot({ path: "test-results/screens/csp-conversation.png", fullPage: true });
});

test("the API docs page works under the policy", async ({ page }) => {
  await page.goto(server.baseUrl + "/docs");
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await page.getByRole("link", { name: "Errors" }).first().click();
  await expect(page).toHaveURL(/#errors$/);
  await page.screenshot({ path: "test-results/screens/csp-docs.png" });
});
