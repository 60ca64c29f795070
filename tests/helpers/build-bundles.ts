import { execFileSync } from "node:child_process";
import { join } from "node:path";

// The tests start the server, the worker and the CLI from their bundles (.next/parley/*.mjs): bundled again here
// when the sources changed since, so that a test run straight from vitest or Playwright (not `npm test`, which
// builds everything first) never runs yesterday's code. A second or so when it bundles, ~0.3 s when it need not.
export default function buildBundles(): void {
  execFileSync(
    process.execPath,
    [join(import.meta.dirname, "..", "..", "scripts", "build-if-needed.mjs"), "--bundles"],
    {
      stdio: "inherit",
    },
  );
}
