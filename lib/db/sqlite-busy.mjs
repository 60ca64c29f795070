// Waiting for SQLite's write lock while another connection or process holds it. SQLite's own busy wait sleeps 1, 2,
// 5 … then 25–100 ms at a time once it has waited a little: a writer that must answer quickly tries again itself, in
// short synchronous steps (the callers are a writer thread, or statements that are synchronous anyway). Plain
// JavaScript: the send writer's thread imports it too.
const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * Runs `attempt` again while it fails with SQLITE_BUSY (or one of its extended codes), sleeping `pauseMs(tries)`
 * between tries (0.25 ms, then 1 ms), for at most `deadlineMs`; then the last error is thrown.
 */
export function whileBusy(attempt, { deadlineMs = 10_000, pauseMs = (tries) => (tries < 50 ? 0.25 : 1) } = {}) {
  const deadline = Date.now() + deadlineMs;
  for (let tries = 0; ; tries++) {
    try {
      return attempt();
    } catch (error) {
      if (!isBusy(error) || Date.now() > deadline) throw error;
      Atomics.wait(pause, 0, 0, pauseMs(tries));
    }
  }
}

/** Whether `error` is SQLite's SQLITE_BUSY (or one of its extended codes): another connection holds the lock. */
export function isBusy(error) {
  return String(error?.code ?? "").startsWith("SQLITE_BUSY");
}
