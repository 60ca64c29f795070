/**
 * How long a session rests after the SMSC answered ESME_RTHROTTLED or ESME_RMSGQFUL on it: `minMs` the first time,
 * doubling with each throttle up to `maxMs`, back to `minMs` once a submit on the session is accepted. Throttles
 * answered while the session already rests (submits that were outstanding together) do not lengthen the rest.
 */
export class ThrottleRest {
  private restingUntil = 0;
  private throttles = 0;

  constructor(
    private readonly minMs: number,
    private readonly maxMs: number,
  ) {}

  resting(now = Date.now()): boolean {
    return now < this.restingUntil;
  }

  /** How long the rest still lasts, in ms (0 when not resting). */
  remainingMs(now = Date.now()): number {
    return Math.max(0, this.restingUntil - now);
  }

  /** Starts a rest and returns its length in ms, or undefined when the session already rests. */
  throttled(now = Date.now()): number | undefined {
    if (this.resting(now)) return undefined;
    const restMs = Math.min(this.maxMs, this.minMs * 2 ** Math.min(this.throttles, 30));
    this.throttles++;
    this.restingUntil = now + restMs;
    return restMs;
  }

  accepted(): void {
    this.throttles = 0;
  }
}
