import { defineConfig } from "@playwright/test";

// Browser tests click through the real pages in Debian's Chromium (Playwright's own browser download needs the
// internet). Each spec starts its own server on a fresh database.
export default defineConfig({
  testDir: "tests",
  testMatch: ["e2e/**/*.spec.ts", "security/**/*.spec.ts"],
  timeout: 60_000,
  workers: 1,
  reporter: [["list"]],
  use: {
    headless: true,
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-quic",
      ],
    },
  },
});
