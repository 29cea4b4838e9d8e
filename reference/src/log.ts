// Structured logs: one JSON object per line on stderr. Never log tokens, secrets or bodies.
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface Logger {
  debug(event: string, fields?: Record<string, unknown>): void;
  info(event: string, fields?: Record<string, unknown>): void;
  warn(event: string, fields?: Record<string, unknown>): void;
  error(event: string, fields?: Record<string, unknown>): void;
  /** Whether a line of this level is written (to skip the work of one that is not). */
  enabled?(level: Exclude<LogLevel, 'silent'>): boolean;
}

export function createLogger(level: LogLevel, write: (line: string) => void = (l) => process.stderr.write(l + '\n')): Logger {
  const at =
    (lvl: Exclude<LogLevel, 'silent'>) =>
    (event: string, fields: Record<string, unknown> = {}) => {
      if (ORDER[lvl] < ORDER[level]) return;
      write(JSON.stringify({ time: new Date().toISOString(), level: lvl, event, ...fields }));
    };
  return {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    enabled: (lvl) => ORDER[lvl] >= ORDER[level],
  };
}
