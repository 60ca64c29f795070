import type { Logger } from "pino";
import type { Carrier, CarrierEvents, CarrierState, Departure, OutboundPart, SubmitResult } from "../carrier";
import type { Provider } from "./provider";

/**
 * An HTTP provider as the worker's carrier. The decisions:
 * - One request per message: part 1 carries the whole text and the media; the provider splits. The message's other
 *   parts still take their paced slots (a 3-segment text holds its `from` for 3 s, as over SMPP) and are recorded as
 *   sent with it, under ids derived from the message's (`<messageId>~<n>`); the status callback answers them all.
 * - 4xx: the message fails with the provider's reason. 429, 5xx and a connection that cannot be made: another try
 *   later, no sooner than the provider's Retry-After. No answer at all (a timeout): the message may have left, so it
 *   is not sent again; it is recorded as sent with that doubt said in its SDR (its provider id unknown, it ends
 *   expired after its validity).
 * - The connection counts as down after DOWN_AFTER submits in a row failed for its own sake (unreachable, 5xx, 429,
 *   no answer), and up again at the next success.
 * - Callbacks come to the server's routes, not here: start() has nothing to listen to.
 */
const DOWN_AFTER = 3;

export interface HttpCarrierOptions {
  name: string;
  provider: Provider;
  /** The connection's status URL, read at each send (the server's address may be known only after start). */
  statusUrl: () => string;
  log: Logger;
}

export class HttpCarrier implements Carrier {
  readonly name: string;
  private failuresInRow = 0;
  private state: CarrierState = { state: "connected", detail: "", since: new Date() };

  constructor(private readonly options: HttpCarrierOptions) {
    this.name = options.name;
  }

  async start(_events: CarrierEvents): Promise<void> {}

  async stop(): Promise<void> {}

  connectionState(): CarrierState {
    return this.state;
  }

  async submit(part: OutboundPart, departure?: Departure): Promise<SubmitResult> {
    await departure?.leave();
    if (part.segmentNumber > 1) {
      departure?.left();
      return {
        ok: true,
        carrierMessageId: `${part.messageId}~${part.segmentNumber}`,
        note: `part ${part.segmentNumber} of ${part.totalSegments} left with part 1, in one request`,
      };
    }
    const answer = await this.options.provider.send({
      messageId: part.messageId,
      from: part.from,
      to: part.to,
      text: part.messageText ?? part.text,
      media: part.media,
      statusUrl: this.options.statusUrl(),
      validUntil: part.validUntil ?? null,
    });
    departure?.left();
    if (answer.ok) {
      this.healthy();
      return { ok: true, carrierMessageId: answer.providerMessageId };
    }
    if (answer.outcome === "refused") {
      this.healthy(); // the provider answered: the connection works, the message is wrong
      return { ok: false, temporary: false, final: "failed", code: answer.code, detail: answer.detail };
    }
    this.failed(answer.outcome === "retry" ? `${answer.code} ${answer.detail}` : answer.detail);
    if (answer.outcome === "retry")
      return {
        ok: false,
        temporary: true,
        code: answer.code,
        detail: answer.detail,
        retryAfterMs: answer.retryAfterMs,
      };
    this.options.log.warn(
      { messageId: part.messageId, detail: answer.detail },
      "the provider did not answer a send: recorded as sent, not sent again",
    );
    return {
      ok: true,
      carrierMessageId: `${part.messageId}~unconfirmed`,
      note: `unconfirmed: ${answer.detail}; the message may have left, so it is not sent again`,
    };
  }

  private healthy(): void {
    this.failuresInRow = 0;
    if (this.state.state !== "connected") this.state = { state: "connected", detail: "", since: new Date() };
  }

  private failed(detail: string): void {
    this.failuresInRow += 1;
    if (this.failuresInRow >= DOWN_AFTER) {
      const since = this.state.state === "down" ? this.state.since : new Date();
      this.state = { state: "down", detail: `${this.failuresInRow} sends in a row failed: ${detail}`, since };
    }
  }
}
