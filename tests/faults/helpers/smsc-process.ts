import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { join } from "node:path";

// The fault suite's SMSC: fixtures/recording-smsc.ts (the `smpp` package's server) in a process of its own, which can
// be killed outright and started again on the same port; and fixtures/smpp-wire-log.py, which watches the loopback
// device for the whole run and notes when each submit_sm to that port went on the wire, by the kernel's clock. What
// they saw is kept across restarts: every submit_sm with the SMSC's message id and answer, every departure on the
// wire, every bind, and which receipts were accepted, so that a restarted SMSC can be handed the receipts its
// predecessor still owed, as a real SMSC would have kept them on disk.

const root = join(import.meta.dirname, "..", "..", "..");

export interface SmscSubmit {
  session: number;
  /** The SMPP system_type the session bound with: the worker's name in this suite. */
  systemType: string;
  id: string;
  from: string;
  to: string;
  /** Part number and part count from the user data header (1 and 1 for a single part). */
  seq: number;
  total: number;
  /** Date.now() of the SMSC when the submit was read. */
  at: number;
  /** Which SMSC process (1, 2, …) took it. */
  generation: number;
}

/** A submit_sm as it went on the wire to the SMSC's port, timed by the kernel (see smpp-wire-log.py). */
export interface WireArrival {
  systemType: string;
  from: string;
  to: string;
  part: number;
  total: number;
  /** When the segment was handed to the loopback device: epoch milliseconds, fractional (null: no timestamp). */
  t: number | null;
}

export interface SmscBind {
  session: number;
  systemType: string;
  ok: boolean;
  generation: number;
}

export interface RecordingSmsc {
  readonly port: number;
  readonly submits: SmscSubmit[];
  readonly arrivals: WireArrival[];
  /** Connections whose bytes the wire log could not follow (it missed some): their submits are not all timed. */
  readonly wireGaps: number[];
  readonly binds: SmscBind[];
  /** Ids of the submits whose delivery receipt an ESME accepted. */
  readonly receiptsAcked: Set<string>;
  /** The command_status each answered submit got (a submit missing here was never answered). */
  readonly answers: Map<string, number>;
  /** Keeps the submit_sm_resp of the submits of sessions bound with this system_type until release(). */
  hold(systemType: string): void;
  /** Sends what was kept, with this command_status (0, accepted, by default), and answers at once again. */
  release(systemType: string, status?: number): void;
  /** SIGKILL of the SMSC: sessions are cut without unbind, answers and receipts not yet written are lost. */
  kill(): Promise<void>;
  /** Starts a new SMSC on the same port, owing the receipts the previous one had not had accepted. */
  restart(): Promise<void>;
  output(): string;
  close(): Promise<void>;
}

export const SMSC_SYSTEM_ID = "parley";
export const SMSC_PASSWORD = "faults";

interface Child {
  process: ChildProcess;
  exited: Promise<void>;
}

/** Spawns a process whose stdout is JSON lines; resolves once it says `listening` (with its port, if it has one). */
function launch(
  command: string,
  args: string[],
  onEvent: (event: Record<string, unknown>) => void,
  log: (text: string) => void,
): Promise<Child & { port: number }> {
  const proc = spawn(command, args, { cwd: root, stdio: ["pipe", "pipe", "pipe"] });
  const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
  proc.stderr!.on("data", (chunk: Buffer) => log(chunk.toString()));
  proc.stdin!.on("error", () => undefined); // a command to a killed process is simply lost
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${args.join(" ")} did not start within 30 s`)), 30_000);
    proc.once("error", (error: Error) => {
      clearTimeout(timer);
      reject(new Error(`${command} could not be started: ${error.message}`));
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`${command} ${args.join(" ")} exited before it was ready: ${proc.exitCode ?? proc.signalCode}`));
    });
    createInterface({ input: proc.stdout! }).on("line", (line) => {
      log(line + "\n");
      const event = JSON.parse(line) as Record<string, unknown>;
      if (event.event === "listening") {
        clearTimeout(timer);
        resolve({ process: proc, exited, port: (event.port as number | undefined) ?? 0 });
      } else {
        onEvent(event);
      }
    });
  });
}

export async function startRecordingSmsc(options: { receiptDelayMs?: number } = {}): Promise<RecordingSmsc> {
  const receiptDelayMs = options.receiptDelayMs ?? 200;
  const submits: SmscSubmit[] = [];
  const arrivals: WireArrival[] = [];
  const wireGaps: number[] = [];
  const binds: SmscBind[] = [];
  const receiptsAcked = new Set<string>();
  const answers = new Map<string, number>();
  let generation = 0;
  let port = 0;
  let smsc: Child | null = null;
  let output = "";
  const log = (text: string) => (output = (output + text).slice(-200_000));

  const start = async (owed: { id: string; from: string; to: string }[]) => {
    generation++;
    const gen = generation;
    const started = await launch(
      process.execPath,
      [
        "--import",
        "tsx",
        join(root, "tests/faults/fixtures/recording-smsc.ts"),
        String(port),
        SMSC_SYSTEM_ID,
        SMSC_PASSWORD,
        String(gen),
        String(receiptDelayMs),
      ],
      (event) => {
        switch (event.event) {
          case "submit":
            submits.push({ ...(event as unknown as Omit<SmscSubmit, "generation">), generation: gen });
            break;
          case "bind":
            binds.push({ ...(event as unknown as Omit<SmscBind, "generation">), generation: gen });
            break;
          case "answer":
            answers.set(event.id as string, event.status as number);
            break;
          case "receipt_acked":
            receiptsAcked.add(event.id as string);
            break;
        }
      },
      log,
    );
    smsc = started;
    port = started.port;
    if (owed.length > 0) started.process.stdin!.write(JSON.stringify({ cmd: "owe", receipts: owed }) + "\n");
  };

  const send = (command: Record<string, unknown>) => smsc?.process.stdin!.write(JSON.stringify(command) + "\n");
  const kill = async () => {
    if (!smsc) return;
    if (smsc.process.exitCode === null) smsc.process.kill("SIGKILL");
    await smsc.exited;
    smsc = null;
  };

  await start([]);
  // The wire log watches the SMSC's port for the whole run, whichever SMSC process listens on it.
  const wire = await launch(
    "python3",
    [join(root, "tests/faults/fixtures/smpp-wire-log.py"), String(port)],
    (event) => {
      if (event.event === "arrival") arrivals.push(event as unknown as WireArrival);
      else if (event.event === "gap") wireGaps.push(event.conn as number);
    },
    log,
  ).catch(async (error: Error) => {
    await kill();
    throw new Error(`${error.message}\n${output}`);
  });
  return {
    get port() {
      return port;
    },
    submits,
    arrivals,
    wireGaps,
    binds,
    receiptsAcked,
    answers,
    hold: (systemType) => send({ cmd: "hold", systemType }),
    release: (systemType, status = 0) => send({ cmd: "release", systemType, status }),
    kill,
    async restart() {
      await kill();
      // What it accepted (or took and never answered) and whose receipt no ESME has accepted yet.
      const owed = submits
        .filter((s) => (answers.get(s.id) ?? 0) === 0 && !receiptsAcked.has(s.id))
        .map((s) => ({ id: s.id, from: s.from, to: s.to }));
      await start(owed);
    },
    output: () => output,
    async close() {
      await kill();
      if (wire.process.exitCode === null) wire.process.kill("SIGKILL");
      await wire.exited;
    },
  };
}
