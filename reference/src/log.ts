// Structured logs: one JSON object per line on stderr (pino), `{"level":"info","time":"<ISO 8601>",…fields,"event":"…"}`.
// Never log tokens, secrets or bodies. Lines are buffered and written asynchronously: a request's line joins a buffer
// that goes out in one write when it holds BUFFER_BYTES, or FLUSH_MS after its first line, off the event loop, so that a
// line costs a request neither a system call nor a wait on stderr. Queued lines are written synchronously when the server
// closes (flush) and when the process exits, including on a crash (pino registers that); a kill -9 may lose the last few.
import { pino, type DestinationStream, type Logger as Pino } from 'pino';

/** About fifteen request lines: one write for them all under load. */
const BUFFER_BYTES = 4096;
/** The longest a line waits in the buffer when traffic is light. */
const FLUSH_MS = 100;

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

export interface Logger {
  debug(event: string, fields?: Record<string, unknown>): void;
  info(event: string, fields?: Record<string, unknown>): void;
  warn(event: string, fields?: Record<string, unknown>): void;
  error(event: string, fields?: Record<string, unknown>): void;
  /** Whether a line of this level is written (to skip the work of one that is not). */
  enabled?(level: Exclude<LogLevel, 'silent'>): boolean;
  /** Writes every queued line now, synchronously (on shutdown). */
  flush?(): void;
}

const NOTHING: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  enabled: () => false,
  flush() {},
};

/**
 * The ISO 8601 time the lines have always carried (pino's default is epoch milliseconds). Formatting a date is a third of
 * a line's cost, so the text is kept for the millisecond it names: under load, the lines of one millisecond share it.
 */
let timeMs = Number.NaN;
let timeText = '';
const isoTime = () => {
  const now = Date.now();
  if (now !== timeMs) {
    timeMs = now;
    timeText = `,"time":"${new Date(now).toISOString()}"`;
  }
  return timeText;
};

/**
 * A logger writing lines of `level` and above to `destination`: a stream, or a file descriptor (by default 2, stderr)
 * written through a buffered, asynchronous writer (pino.destination with sync: false). `silent` writes nothing and
 * opens nothing.
 */
export function createLogger(level: LogLevel, destination: DestinationStream | number = 2): Logger {
  if (level === 'silent') return NOTHING;
  const boom = typeof destination === 'number' ? pino.destination({ dest: destination, sync: false, minLength: BUFFER_BYTES }) : undefined;
  const p: Pino = pino(
    {
      level,
      base: null,
      messageKey: 'event',
      timestamp: isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    boom ?? (destination as DestinationStream),
  );
  // A buffer that has not filled goes out FLUSH_MS after its first line: one timer per buffer, not per line.
  let timer: NodeJS.Timeout | undefined;
  const flushSoon = () => {
    timer = undefined;
    boom?.flush();
  };
  const at =
    (lvl: Exclude<LogLevel, 'silent'>) =>
    (event: string, fields?: Record<string, unknown>): void => {
      if (!p.isLevelEnabled(lvl)) return;
      if (fields === undefined) p[lvl](event);
      else p[lvl](fields, event);
      if (boom && timer === undefined) {
        timer = setTimeout(flushSoon, FLUSH_MS);
        timer.unref();
      }
    };
  return {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    enabled: (lvl) => p.isLevelEnabled(lvl),
    flush() {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      try {
        boom?.flushSync();
      } catch {
        // The writer is not ready (its file still opening) or gone: nothing of ours to write.
      }
    },
  };
}
