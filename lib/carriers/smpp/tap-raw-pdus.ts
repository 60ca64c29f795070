/**
 * Hands over each PDU read from an smpp Session's socket, as raw bytes, before the `smpp` package decodes it.
 *
 * How: the package reads the socket in paused mode (`socket.read(n)` on 'readable'); Node emits 'data' with every
 * chunk read() returns, without switching the stream to flowing mode while a 'readable' listener is attached. So a
 * 'data' listener sees exactly the bytes the package consumes, in order, and a whole PDU is complete here
 * synchronously before the package emits its 'pdu' event for it.
 */
import type { Socket } from "node:net";

const MIN_PDU_LENGTH = 16;

export function tapRawPdus(socket: Socket, onPdu: (pdu: Buffer) => void): void {
  let pending: Buffer = Buffer.alloc(0);
  socket.on("data", (chunk: Buffer) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    while (pending.length >= 4) {
      const length = pending.readUInt32BE(0);
      // A bad length makes the package fail the session; nothing more to hand over.
      if (length < MIN_PDU_LENGTH || pending.length < length) break;
      onPdu(pending.subarray(0, length));
      pending = pending.subarray(length);
    }
  });
}
