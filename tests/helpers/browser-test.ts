import { test as base, expect, type BrowserContext, type Page } from "@playwright/test";

// Playwright's `test` for every browser spec, watching the Content-Security-Policy: each page of each browser
// context (the `page` fixture's and those a spec opens itself with browser.newContext or browser.newPage) reports
// the violations the browser sees, both the `securitypolicyviolation` DOM events and the console errors Chromium
// writes for them ("Refused to … because it violates the following Content Security Policy directive"). A test
// fails when any occurred while it ran (or in the hooks before it), so the portal is known to work under its policy.
// A test that provokes a violation on purpose takes it with `csp.take()` and asserts on it.

export { expect };

export interface CspWatch {
  /** The violations seen since the last take (and forgets them). */
  take(): string[];
}

const BINDING = "__parleyReportCspViolation";
const watched = new WeakSet<BrowserContext>();
// One Playwright worker runs one test at a time: what its contexts see belongs to the test running.
const seen: string[] = [];

interface ViolationEvent {
  directive: string;
  blocked: string;
  sample: string;
  disposition: string;
}

async function watchContext(context: BrowserContext): Promise<void> {
  if (watched.has(context)) return;
  watched.add(context);
  await context.exposeBinding(BINDING, ({ frame }, event: ViolationEvent) => {
    const sample = event.sample ? ` (${event.sample})` : "";
    seen.push(`${frame.url()}: ${event.disposition} ${event.directive} blocked ${event.blocked || "inline"}${sample}`);
  });
  // In every document, before its own scripts: the event fires at the document (bubbling from the element).
  await context.addInitScript((binding: string) => {
    document.addEventListener(
      "securitypolicyviolation",
      (event) => {
        const report = (window as unknown as Record<string, (event: ViolationEvent) => void>)[binding];
        report?.({
          directive: event.effectiveDirective,
          blocked: event.blockedURI,
          sample: event.sample,
          disposition: event.disposition,
        });
      },
      true,
    );
  }, BINDING);
  context.on("console", (message) => {
    if (message.type() === "error" && /Content Security Policy/i.test(message.text())) {
      seen.push(`console on ${message.page()?.url() ?? "?"}: ${message.text()}`);
    }
  });
}

export const test = base.extend<{ csp: CspWatch }, { watchContexts: void }>({
  // Every context the worker's browser opens is watched, whoever opens it (Browser.newPage opens a context too).
  watchContexts: [
    async ({ browser }, use) => {
      const newContext = browser.newContext.bind(browser);
      browser.newContext = async (options) => {
        const context = await newContext(options);
        await watchContext(context);
        return context;
      };
      await use();
      browser.newContext = newContext;
    },
    { scope: "worker", auto: true },
  ],
  csp: [
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      await use({ take: () => seen.splice(0) });
      expect(seen.splice(0), "Content-Security-Policy violations in the browser").toEqual([]);
    },
    { auto: true },
  ],
});

/** Signs in on the portal's sign-in page as a person does, and waits until the portal has let them in. */
export async function signInPortal(page: Page, baseUrl: string, email: string, password: string): Promise<void> {
  await page.goto(baseUrl + "/login");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).not.toHaveURL(/\/login/);
}
