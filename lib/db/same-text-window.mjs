// Automatic bulk's window on SQLite, in memory: how many destinations each account's text went to, per second,
// over the last ten minutes (lib/throttle/auto-bulk.ts has the rule). The send writer's thread keeps one, filled from
// the append-only log "SameTextLog" (its rows in id order: every send writer of the file appends, each folds in what
// all of them committed, so processes on one file count together and a restarted one starts where they are).
//
// Why not a table keyed by text: every text is a random key, so each send dirtied a page of its own in that index,
// and each commit wrote those pages to the write-ahead log whole, under the write lock every writer waits for. The
// log's rows go to its end instead, a few pages a batch.
//
// Memory: one entry per account and text sent within the window, about 130 bytes (147 MB for 1.2 million texts,
// 2,000 distinct texts a second for ten minutes). A text is keyed by the first 12 characters of its hash (72 bits of
// SHA-256): two texts would need to share them to be counted together. A string that short is copied, where a
// longer slice would keep the whole hash it came from alive.
// Plain JavaScript: the writer's thread imports it.

const KEY_CHARS = 12;
// A text sent in one second only (most of them) is kept as one number, second * 2^21 + count; otherwise as an
// array [second, count, second, count, …] in order of second.
const PACK = 2 ** 21;

export class SameTextWindow {
  /** accountId → text key → packed bucket or bucket array. */
  #accounts = new Map();
  // Buckets in the order they were added, for pruning: second, account's map, text key.
  #queue = [];
  #head = 0;

  /** Adds `count` destinations to an account's text in `second`. */
  add(accountId, textHash, second, count) {
    let texts = this.#accounts.get(accountId);
    if (!texts) this.#accounts.set(accountId, (texts = new Map()));
    const key = textHash.slice(0, KEY_CHARS);
    const value = texts.get(key);
    if (value === undefined) {
      texts.set(key, count < PACK ? second * PACK + count : [second, count]);
    } else {
      const buckets = typeof value === "number" ? unpack(value) : value;
      addToBuckets(buckets, second, count);
      texts.set(key, buckets.length === 2 && buckets[1] < PACK ? buckets[0] * PACK + buckets[1] : buckets);
    }
    this.#queue.push(second, texts, key);
  }

  /**
   * The destinations of an account's text in seconds from `since` on; it stops adding once past `enough` (the total
   * is then at least that).
   */
  total(accountId, textHash, since, enough = Infinity) {
    const value = this.#accounts.get(accountId)?.get(textHash.slice(0, KEY_CHARS));
    if (value === undefined) return 0;
    if (typeof value === "number") {
      const [second, count] = unpack(value);
      return second >= since ? count : 0;
    }
    let total = 0;
    for (let i = value.length - 2; i >= 0 && value[i] >= since && total <= enough; i -= 2) total += value[i + 1];
    return total;
  }

  /** Forgets the seconds before `before`. */
  prune(before) {
    const queue = this.#queue;
    while (this.#head < queue.length && queue[this.#head] < before) {
      const texts = queue[this.#head + 1];
      const key = queue[this.#head + 2];
      queue[this.#head + 1] = queue[this.#head + 2] = undefined;
      this.#head += 3;
      const value = texts.get(key);
      if (value === undefined) continue;
      if (typeof value === "number") {
        if (Math.floor(value / PACK) < before) texts.delete(key);
        continue;
      }
      let keep = 0;
      while (keep < value.length && value[keep] < before) keep += 2;
      if (keep === value.length) texts.delete(key);
      else if (keep > 0) value.splice(0, keep);
    }
    if (this.#head > 3 * 65_536 && this.#head * 2 > queue.length) {
      queue.splice(0, this.#head);
      this.#head = 0;
    }
    for (const [accountId, texts] of this.#accounts) if (texts.size === 0) this.#accounts.delete(accountId);
  }

  /** Texts held, over all accounts. */
  get size() {
    let size = 0;
    for (const texts of this.#accounts.values()) size += texts.size;
    return size;
  }
}

function unpack(value) {
  const second = Math.floor(value / PACK);
  return [second, value - second * PACK];
}

function addToBuckets(buckets, second, count) {
  let i = buckets.length - 2;
  while (i >= 0 && buckets[i] > second) i -= 2;
  if (i >= 0 && buckets[i] === second) buckets[i + 1] += count;
  else buckets.splice(i + 2, 0, second, count);
}
