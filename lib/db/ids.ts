import { randomFillSync, randomUUID } from "node:crypto";

// Message ids are UUIDv7 (RFC 9562): time-ordered, so the id breaks ties between messages created in the same
// millisecond in the order they were accepted, and index inserts stay append-mostly.
let lastMs = 0;
let sequence = 0;

// Random bytes drawn 4 KiB at a time: one system call per ~230 ids instead of two per id.
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

function randomSlice(size: number): Buffer {
  if (poolOffset + size > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const slice = Buffer.from(pool.subarray(poolOffset, poolOffset + size));
  poolOffset += size;
  return slice;
}

export function uuidv7(now = Date.now()): string {
  if (now <= lastMs) {
    sequence = (sequence + 1) & 0xfff;
    if (sequence === 0) lastMs += 1; // 4096 ids in one millisecond: borrow the next one
    now = lastMs;
  } else {
    lastMs = now;
    sequence = randomSlice(2).readUInt16BE(0) & 0x7ff; // leave room to count up within the millisecond
  }
  const bytes = randomSlice(16);
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = 0x70 | (sequence >> 8);
  bytes[7] = sequence & 0xff;
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export function uuidv4(): string {
  return randomUUID();
}

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
