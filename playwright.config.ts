import { defineConfig } from "@playwright/test";

// Browser tests click through the real pages in Debian's Chromium (Playwright's own browser download needs the
// internet). Each spec starts its own server on a fresh database. The portal's specs run two at a time; the live
// conversation view's (whose tests time pushes and reconnections) run after them, one at a time, alone on the machine.
const LIVE = ["e2e/conversations-*.spec.ts", "e2e/team-inbox.spec.ts"];

export default defineConfig({
  testDir: "tests",
  globalSetup: "./tests/helpers/build-bundles.ts",
  timeout: 60_000,
  workers: 2,
  reporter: [["list"]],
  projects: [
    { name: "portal", testMatch: ["e2e/**/*.spec.ts", "security/**/*.spec.ts"], testIgnore: LIVE },
    { name: "live", testMatch: LIVE, dependencies: ["portal"], workers: 1 },
  ],
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
