/**
 * The wait before reconnect attempt `attempt` (0 for the first after a bound link closed): exponential from `minMs`,
 * doubling up to `maxMs`, ±50 % jitter clamped to that range, so that ESMEs cut off together do not return together.
 */
export function reconnectDelay(attempt: number, minMs: number, maxMs: number): number {
  const base = Math.min(maxMs, minMs * 2 ** Math.min(attempt, 30));
  const jittered = base * (0.5 + Math.random());
  return Math.round(Math.min(maxMs, Math.max(minMs, jittered)));
}
