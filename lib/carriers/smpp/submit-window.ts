/**
 * The window of one session's outstanding submit_sm: at most `size` wait for their submit_sm_resp at once (SMSCs
 * throttle or drop an ESME that exceeds the window agreed with them). Parts waiting for room queue in the session
 * pool (smpp-sessions.ts), which takes the first session that frees a slot.
 */
export class SubmitWindow {
  private inUse = 0;

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`window must be a positive integer, got ${size}`);
  }

  /** Takes a slot if one is free (give it back with release). */
  tryAcquire(): boolean {
    if (this.inUse >= this.size) return false;
    this.inUse++;
    return true;
  }

  release(): void {
    if (this.inUse > 0) this.inUse--;
  }

  get free(): number {
    return this.size - this.inUse;
  }

  get outstanding(): number {
    return this.inUse;
  }
}
