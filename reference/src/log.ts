// Structured logs: one JSON object per line on stderr (pino), `{"level":"info","time":"<ISO 8601>",…fields,"event":"…"}`.
// Never log tokens, secrets or bodies. Lines are written asynchronously: a request's line is queued, and what queues while
// a write is under way goes out in the next one, so logging never blocks the event loop on stderr. Queued lines are
// written synchronously when the server closes (flush) and when the process exits, including on a crash (pino registers
// that); a kill -9 may lose the last few.
import { pino, type DestinationStream, type Logger as Pino } from 'pino';

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

/** The ISO 8601 time the lines have always carried (pino's default is epoch milliseconds). */
const isoTime = () => `,"time":"${new Date().toISOString()}"`;

/**
 * A logger writing lines of `level` and above to `destination`: by default stderr through an asynchronous, buffered
 * writer (pino.destination with sync: false). `silent` writes nothing and opens nothing.
 */
export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  if (level === 'silent') return NOTHING;
  const stream = destination ?? pino.destination({ dest: 2, sync: false });
  const p: Pino = pino(
    {
      level,
      base: null,
      messageKey: 'event',
      timestamp: isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    stream,
  );
  const at =
    (lvl: Exclude<LogLevel, 'silent'>) =>
    (event: string, fields?: Record<string, unknown>): void => {
      if (fields === undefined) p[lvl](event);
      else p[lvl](fields, event);
    };
  return {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    enabled: (lvl) => p.isLevelEnabled(lvl),
    flush() {
      const s = stream as { flushSync?: () => void };
      try {
        s.flushSync?.();
      } catch {
        // Nothing queued yet, or the writer is not ready (its file still opening): nothing to lose.
      }
    },
  };
}
