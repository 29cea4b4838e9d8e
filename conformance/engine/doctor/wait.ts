// `--wait <duration>` of doctor and run: a deployment started in the background a moment ago is given time to come up.
// It is polled for /health, then for each description document, until every one answers or the time is up. Only then
// does the doctor judge it: a wrong answer that does come (a TLS failure, a 200 that is not OpenAPI) ends the wait at once.
import { SPECIAL_PATHS, DESCRIPTION, ASSISTANT_DESCRIPTION } from '../../../contract/routes.js';
import { ShopHttp } from '../transport/http.js';
import { isTlsError, type TlsOptions } from '../transport/wire.js';

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000 };

/** `60s`, `2m`, `500ms`, or a bare number of seconds; undefined when the text is none of these. */
export function parseDuration(text: string): number | undefined {
  const m = /^(\d+)(ms|s|m)?$/.exec(text.trim());
  return m ? Number(m[1]) * UNITS[m[2] ?? 's']! : undefined;
}

export type WaitResult = { ready: true } | { ready: false; line: string };

/** What must answer, in order: the service's health, then its two description documents. */
const STAGES: { path: string; ready: (status: number) => boolean; expected: string }[] = [
  { path: SPECIAL_PATHS.getHealth, ready: (s) => s >= 200 && s < 300, expected: 'a 2xx' },
  { path: DESCRIPTION.path, ready: (s) => s === 200, expected: '200' },
  { path: ASSISTANT_DESCRIPTION.path, ready: (s) => s === 200, expected: '200' },
];

export async function waitForReady(
  baseUrl: string,
  o: { timeoutMs: number; tls?: TlsOptions; intervalMs?: number; label: string },
): Promise<WaitResult> {
  const base = baseUrl.replace(/\/+$/, '');
  const deadline = Date.now() + o.timeoutMs;
  const interval = o.intervalMs ?? 250;
  const http = new ShopHttp(base, o.tls);
  try {
    for (const stage of STAGES) {
      let last = 'no answer';
      for (;;) {
        const left = deadline - Date.now();
        try {
          const res = await http.get(stage.path, { timeoutMs: Math.max(100, Math.min(5000, left)) });
          if (stage.ready(res.status)) break;
          last = `last answer ${res.status}, expected ${stage.expected}`;
        } catch (err) {
          // Something answers, over TLS the suite does not trust: waiting changes nothing, the doctor says what to pass.
          if (isTlsError(err)) return { ready: true };
          const e = err as Error & { code?: string; cause?: { code?: string; message?: string } };
          last = e.code ?? e.cause?.code ?? e.cause?.message ?? e.message;
        }
        if (Date.now() + interval >= deadline)
          return { ready: false, line: `${o.label}: ${base}${stage.path} never answered within ${o.timeoutMs / 1000}s (${last})` };
        await new Promise((r) => setTimeout(r, interval));
      }
    }
    return { ready: true };
  } finally {
    http.close();
  }
}
