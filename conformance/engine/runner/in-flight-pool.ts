// The workers' common pool of places in flight. Each worker keeps a few places of the cap to itself (in-flight.ts), used
// without asking anyone; the rest of the cap is one pool that the CLI's process holds, so that a check sending many
// independent requests at once (a budget spent, a caller × operation matrix) may take the places the other workers leave
// idle while their checks wait on one answer at a time. All workers' own places plus the pool are the cap: together they
// never exceed it.
//
// A worker borrows over a local socket (a Unix socket, a named pipe on Windows): one byte asks ('a'), one byte answers
// ('y' a place is lent, 'n' none is free: the worker then waits for one of its own), one byte gives a place back ('r').
// Nothing waits in the pool, so a worker that ends or crashes can never leave another waiting: its places come back when
// its connection closes.
import { connect, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';

const ASK = 0x61; // 'a'
const LENT = 0x79; // 'y'
const NONE = 0x6e; // 'n'
const BACK = 0x72; // 'r'

export interface InFlightPool {
  /** Where the workers reach it (the plan's workers.inFlightPool, runner/plan.ts). */
  readonly path: string;
  /** Places lent now (for tests). */
  readonly lent: () => number;
  close(): Promise<void>;
}

/** The socket's path for a pool in `dir` (a named pipe on Windows, whose paths are not files). */
function socketPath(dir: string): string {
  return process.platform === 'win32' ? `\\\\.\\pipe\\shop-conformance-${process.pid}-${Date.now()}` : join(dir, 'in-flight.sock');
}

/** Serves a pool of `places` from this process, on a socket in `dir` (a directory of the run's own). */
export async function startInFlightPool(places: number, dir: string): Promise<InFlightPool> {
  let lent = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    let mine = 0;
    socket.on('data', (bytes: Buffer) => {
      const answers: number[] = [];
      for (const byte of bytes) {
        if (byte === ASK) {
          const free = lent < places;
          if (free) {
            lent++;
            mine++;
          }
          answers.push(free ? LENT : NONE);
        } else if (byte === BACK && mine > 0) {
          lent--;
          mine--;
        }
      }
      if (answers.length > 0 && !socket.destroyed) socket.write(Buffer.from(answers));
    });
    socket.on('error', () => undefined);
    socket.once('close', () => {
      lent -= mine;
      mine = 0;
      sockets.delete(socket);
    });
  });
  const path = socketPath(dir);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
  // The CLI's process must not stay alive for the pool alone.
  server.unref();
  return {
    path,
    lent: () => lent,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A worker's side of the pool: asks for a place, gives it back. */
export interface PoolBorrower {
  /** Resolves true when the pool lent a place (give it back with `giveBack`), false when none is free or it is gone. */
  tryBorrow(): Promise<boolean>;
  giveBack(): void;
}

/** Connects to the pool at `path` when first asked; if it cannot be reached, every ask answers "none" (the worker's own places remain). */
export function poolBorrower(path: string): PoolBorrower {
  let socket: Socket | undefined;
  let gone = false;
  // Answers come in the order of the asks.
  const waiting: ((lent: boolean) => void)[] = [];
  const fail = () => {
    gone = true;
    for (const w of waiting.splice(0)) w(false);
  };
  const open = (): Socket => {
    if (socket) return socket;
    const s = connect(path);
    s.unref();
    s.on('data', (bytes: Buffer) => {
      for (const byte of bytes) waiting.shift()?.(byte === LENT);
    });
    s.on('error', fail);
    s.once('close', fail);
    return (socket = s);
  };
  return {
    tryBorrow() {
      if (gone) return Promise.resolve(false);
      const s = open();
      return new Promise<boolean>((resolve) => {
        waiting.push(resolve);
        s.write(Buffer.of(ASK));
      });
    },
    giveBack() {
      if (!gone && socket) socket.write(Buffer.of(BACK));
    },
  };
}

/**
 * The pool, or none when its socket cannot be served here (a path too long for a Unix socket, a sandbox that forbids
 * them): the workers then keep to their own places, a slower run but the same verdicts.
 */
export async function tryStartInFlightPool(places: number, dir: string): Promise<InFlightPool | undefined> {
  try {
    return await startInFlightPool(places, dir);
  } catch {
    return undefined;
  }
}
