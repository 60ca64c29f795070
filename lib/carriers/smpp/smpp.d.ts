// The `smpp` package (0.5.x) ships no types. Only what Parley's carrier and its tests use is declared here.
declare module "smpp" {
  import type { EventEmitter } from "node:events";
  import type { Server as NetServer, Socket } from "node:net";

  namespace smpp {
    /** A decoded PDU: header fields plus the command's parameters and TLVs under their spec names. */
    interface PDU {
      command: string;
      command_id: number;
      command_status: number;
      sequence_number: number;
      [field: string]: unknown;
      isResponse(): boolean;
      /** The matching `<command>_resp` (or generic_nack for an unknown command), same sequence number. */
      response(options?: Record<string, unknown>): PDU;
      toBuffer(): Buffer;
    }

    interface PDUConstructor {
      new (command: string, options?: Record<string, unknown>): PDU;
    }

    type ResponseCallback = (pdu: PDU) => void;
    type RequestOptions = Record<string, unknown>;
    type Shortcut = (options: RequestOptions, onResponse?: ResponseCallback, onSent?: ResponseCallback) => boolean;

    interface Session extends EventEmitter {
      readonly socket: Socket;
      /** Writes the PDU; false when the socket is not writable. A request gets the next sequence number. */
      send(pdu: PDU, onResponse?: ResponseCallback, onSent?: ResponseCallback): boolean;
      close(callback?: () => void): void;
      destroy(callback?: () => void): void;
      pause(): void;
      resume(): void;
      bind_transceiver: Shortcut;
      bind_transmitter: Shortcut;
      bind_receiver: Shortcut;
      submit_sm: Shortcut;
      deliver_sm: Shortcut;
      enquire_link: Shortcut;
      unbind: Shortcut;
      generic_nack: Shortcut;
    }

    interface Server extends NetServer {
      sessions: Session[];
    }

    interface ConnectOptions {
      host: string;
      port: number;
      auto_enquire_link_period?: number;
    }

    function connect(options: ConnectOptions, onConnect?: () => void): Session;
    function createServer(onSession?: (session: Session) => void): Server;
    function createServer(options: Record<string, unknown>, onSession?: (session: Session) => void): Server;

    const PDU: PDUConstructor;
    /** Command status names (ESME_ROK, ESME_RTHROTTLED, …) to their values. */
    const errors: Readonly<Record<string, number>>;
  }

  export = smpp;
}
