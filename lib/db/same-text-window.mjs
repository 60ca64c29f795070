// Automatic bulk's window on SQLite, in memory: how many destinations each account's text went to, per second,
// over the last ten minutes (lib/throttle/auto-bulk.ts has the rule). The send writer's thread keeps one, filled from
// the append-only log "SameTextLog" (its rows in id order: every send writer of the file appends, each folds in what
// all of them committed, so processes on one file count together and a restarted one starts where they are).
//
// Why not a table keyed by text: every text is a random key, so each send dirtied a page of its own in that index,
// and each commit wrote those pages to the write-ahead log whole, under the write lock every writer waits for. The
// log's rows go to its end instead, a few pages a batch.
//
// Memory: one entry per account, text and minute sent in within the window, about 80 bytes (90–98 MB held for 1.2
// million texts, 2,000 distinct texts a second for ten minutes and more). A text is keyed by the first 12 characters
// of its hash (72 bits of SHA-256): two texts would need to share them to be counted together. A string that short is
// copied, where a longer slice would keep the whole hash it came from alive.
// Plain JavaScript: the writer's thread imports it.

const KEY_CHARS = 12;
// A text sent in one second of a minute only (most of them) is kept as one number, second * 2^21 + count; otherwise
// as an array [second, count, second, count, …] in order of second.
const PACK = 2 ** 21;

export class SameTextWindow {
  // minute → accountId → text key → the text's seconds in that minute: one packed bucket, or a bucket array. By
  // minute so that forgetting is dropping whole maps (no entry is deleted one by one, and a map never keeps the room
  // of entries gone); a row that comes late, or early (another host's clock), is forgotten with its own minute.
  #minutes = new Map();

  /** Adds `count` destinations to an account's text in `second`. */
  add(accountId, textHash, second, count) {
    const minute = Math.floor(second / 60);
    let accounts = this.#minutes.get(minute);
    if (!accounts) this.#minutes.set(minute, (accounts = new Map()));
    let texts = accounts.get(accountId);
    if (!texts) accounts.set(accountId, (texts = new Map()));
    const key = textHash.slice(0, KEY_CHARS);
    const value = texts.get(key);
    if (value === undefined) {
      texts.set(key, count < PACK ? second * PACK + count : [second, count]);
      return;
    }
    const buckets = typeof value === "number" ? unpack(value) : value;
    addToBuckets(buckets, second, count);
    texts.set(key, buckets.length === 2 && buckets[1] < PACK ? buckets[0] * PACK + buckets[1] : buckets);
  }

  /**
   * The destinations of an account's text in seconds from `since` on; it stops adding once past `enough` (the total
   * is then at least that).
   */
  total(accountId, textHash, since, enough = Infinity) {
    const key = textHash.slice(0, KEY_CHARS);
    let total = 0;
    for (const [minute, accounts] of this.#minutes) {
      if ((minute + 1) * 60 <= since) continue;
      const value = accounts.get(accountId)?.get(key);
      if (value === undefined) continue;
      if (typeof value === "number") {
        const [second, count] = unpack(value);
        if (second >= since) total += count;
      } else {
        for (let i = value.length - 2; i >= 0 && value[i] >= since; i -= 2) total += value[i + 1];
      }
      if (total > enough) return total;
    }
    return total;
  }

  /** Forgets the minutes that end by `before` (a second): nothing in them counts from `before` on. */
  prune(before) {
    for (const minute of this.#minutes.keys()) if ((minute + 1) * 60 <= before) this.#minutes.delete(minute);
  }

  /** Texts held, over all accounts (a text sent in two minutes counts twice). */
  get size() {
    let size = 0;
    for (const accounts of this.#minutes.values()) for (const texts of accounts.values()) size += texts.size;
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
