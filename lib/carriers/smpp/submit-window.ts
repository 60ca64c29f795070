/**
 * The window of outstanding submit_sm: at most `size` wait for their submit_sm_resp at once, the rest queue in
 * arrival order (SMSCs throttle or drop an ESME that exceeds the window agreed with them).
 */
export class SubmitWindow {
  private inUse = 0;
  private readonly waiting: Array<(granted: boolean) => void> = [];
  private closed = false;

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`window must be a positive integer, got ${size}`);
  }

  /** Resolves true with a slot held (give it back with release), or false once the window is closed. */
  acquire(): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    if (this.inUse < this.size) {
      this.inUse++;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  release(): void {
    const next = this.waiting.shift();
    if (next) next(true);
    else this.inUse--;
  }

  /** Refuses new and queued acquirers; slots already held are still released as usual. */
  close(): void {
    this.closed = true;
    for (const waiter of this.waiting.splice(0)) waiter(false);
  }

  get outstanding(): number {
    return this.inUse;
  }
}
