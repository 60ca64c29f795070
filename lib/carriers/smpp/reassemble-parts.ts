/**
 * Holds the parts of concatenated inbound messages until all have arrived.
 *
 * The decisions:
 * - A message is complete when parts 1..total are all there; a part that comes again replaces the earlier copy.
 * - A complete message stays held until the caller says it was handled (`done`); if handling failed (`retry`),
 *   the part that completed it is dropped so that the SMSC's retry of that part completes it again.
 * - Parts still missing after the timeout: what arrived is handed to `expire`, in order. If that fails, the parts
 *   are kept and tried again after another timeout. `flush` hands over everything held (used on stop).
 */

interface Pending<T> {
  total: number;
  parts: Map<number, T>;
  /** Complete and being handled by the caller; further copies of its parts are ignored meanwhile. */
  completing: boolean;
  timer?: NodeJS.Timeout;
}

export class PartReassembler<T> {
  private readonly pending = new Map<string, Pending<T>>();

  constructor(
    private readonly timeoutMs: number,
    private readonly expire: (parts: T[], total: number) => Promise<void>,
  ) {}

  /** Adds a part; returns all parts in order once the message is complete, otherwise undefined. */
  add(key: string, total: number, seq: number, part: T): T[] | undefined {
    let entry = this.pending.get(key);
    if (!entry || entry.total !== total) {
      if (entry) clearTimeout(entry.timer);
      entry = { total, parts: new Map(), completing: false };
      this.pending.set(key, entry);
    }
    if (entry.completing) return undefined;
    entry.parts.set(seq, part);
    if (entry.parts.size < total) {
      if (!entry.timer) this.arm(key, entry);
      return undefined;
    }
    clearTimeout(entry.timer);
    entry.timer = undefined;
    entry.completing = true;
    return this.ordered(entry);
  }

  /** The complete message under `key` was handled. */
  done(key: string): void {
    this.pending.delete(key);
  }

  /** Handling the complete message failed: forget part `seq` so that its redelivery completes the message again. */
  retry(key: string, seq: number): void {
    const entry = this.pending.get(key);
    if (!entry) return;
    entry.completing = false;
    entry.parts.delete(seq);
    this.arm(key, entry);
  }

  /** Hands every incomplete message to `expire` now and waits for it. */
  async flush(): Promise<void> {
    const keys = [...this.pending].filter(([, entry]) => !entry.completing).map(([key]) => key);
    await Promise.allSettled(keys.map((key) => this.expireNow(key)));
    for (const entry of this.pending.values()) clearTimeout(entry.timer);
    this.pending.clear();
  }

  get size(): number {
    return this.pending.size;
  }

  private ordered(entry: Pending<T>): T[] {
    return [...entry.parts].sort(([a], [b]) => a - b).map(([, part]) => part);
  }

  private arm(key: string, entry: Pending<T>): void {
    clearTimeout(entry.timer);
    entry.timer = setTimeout(() => void this.expireNow(key), this.timeoutMs);
    entry.timer.unref();
  }

  private async expireNow(key: string): Promise<void> {
    const entry = this.pending.get(key);
    if (!entry || entry.completing) return;
    clearTimeout(entry.timer);
    this.pending.delete(key);
    try {
      await this.expire(this.ordered(entry), entry.total);
    } catch {
      // Keep what arrived (plus anything that came meanwhile) for another round.
      const now = this.pending.get(key);
      if (now && now.total === entry.total && !now.completing) {
        for (const [seq, part] of entry.parts) if (!now.parts.has(seq)) now.parts.set(seq, part);
      } else if (!now) {
        entry.timer = undefined;
        this.pending.set(key, entry);
        this.arm(key, entry);
      }
    }
  }
}
