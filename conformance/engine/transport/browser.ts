// A real browser calling the target cross-origin (spec, What the service does 7: no CORS support, "no browser calls the
// service cross-origin"). Chromium (Debian's package, SHOP_CONFORMANCE_CHROMIUM) loads a blank page from a server of
// ours on another origin, and the page calls the target with fetch. What the browser decides (a refused response rejects
// the fetch) and every response header it received, preflights included, come back; the check judges them.
// The second way the suite reaches the target besides engine/transport/wire.ts: the browser's own network stack, on purpose.
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium } from 'playwright-core';

/** Debian's chromium unless SHOP_CONFORMANCE_CHROMIUM names another executable; `none` runs as a machine without a browser. */
export const chromiumPath = (): string => process.env.SHOP_CONFORMANCE_CHROMIUM || '/usr/bin/chromium';
export const browserAvailable = (): boolean => chromiumPath() !== 'none' && existsSync(chromiumPath());
/**
 * How the skip reason of a browser check begins when no browser is found: the self-test's matrix reads it
 * (conformance/selftest/matrix.ts) to set such a defect aside as unjudged rather than count it a survivor.
 */
export const NO_BROWSER = 'no browser';
/** The skip reason of a browser check on a machine without Chromium. */
export const noBrowserReason = (): string =>
  chromiumPath() === 'none'
    ? `${NO_BROWSER} (SHOP_CONFORMANCE_CHROMIUM=none)`
    : `${NO_BROWSER} at ${chromiumPath()} (install Debian's chromium, or set SHOP_CONFORMANCE_CHROMIUM)`;

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export interface CrossOriginCall {
  name: string;
  path: string;
  init: { method?: string; headers?: Record<string, string>; body?: string; credentials?: 'include' | 'omit' | 'same-origin' };
}

export interface CrossOriginOutcome {
  name: string;
  /** true when the page's fetch resolved: the browser let the page read the response. */
  readable: boolean;
  /** The fetch's rejection, when it rejected. */
  error?: string;
}

export interface ReceivedResponse {
  url: string;
  /** `Preflight` for the OPTIONS a browser sends before a non-simple request. */
  type: string;
  status: number;
  headers: Record<string, string>;
}

/** A call whose answer the browser received and refused to the page, with its CORS error (MissingAllowOriginHeader, …). */
export interface CorsRefusal {
  url: string;
  corsError: string;
}

/** A one-page server on 127.0.0.1: the page's origin differs from the target's at least by port. */
async function pageServer(): Promise<{ server: Server; origin: string }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>cross-origin page</title>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

export async function callCrossOrigin(
  baseUrl: string,
  calls: readonly CrossOriginCall[],
): Promise<{ pageOrigin: string; outcomes: CrossOriginOutcome[]; responses: ReceivedResponse[]; refusals: CorsRefusal[] }> {
  const { server, origin } = await pageServer();
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: FLAGS });
  try {
    const page = await browser.newPage({ ignoreHTTPSErrors: true });
    // Chrome DevTools Protocol: the raw headers of every response, those the browser then refuses to the page included.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    // Raw headers come in ExtraInfo events from the network service, in no fixed order with the request's own events, and
    // possibly after the fetch has already settled: keep them by request id and match them to URLs at the end.
    const requests = new Map<string, { url: string; type: string }>();
    const received = new Map<string, { status: number; headers: Record<string, string>; type?: string; url?: string }[]>();
    const add = (id: string, r: { status: number; headers: Record<string, string>; type?: string; url?: string }) =>
      received.set(id, [...(received.get(id) ?? []), r]);
    cdp.on('Network.requestWillBeSent', (e) => requests.set(e.requestId, { url: e.request.url, type: e.type ?? '' }));
    cdp.on('Network.responseReceived', (e) =>
      add(e.requestId, { url: e.response.url, type: e.type, status: e.response.status, headers: lower(e.response.headers) }),
    );
    cdp.on('Network.responseReceivedExtraInfo', (e) => add(e.requestId, { status: e.statusCode, headers: lower(e.headers) }));
    // A CORS error is the browser refusing an answer it received: proof that the call reached the target, even when the
    // answer's headers are late or lost.
    const corsErrors = new Map<string, string>();
    cdp.on('Network.loadingFailed', (e) => {
      if (e.corsErrorStatus) corsErrors.set(e.requestId, e.corsErrorStatus.corsError);
    });
    await page.goto(origin);
    const base = baseUrl.replace(/\/$/, '');
    const outcomes = await page.evaluate(
      async ({ base, list }) =>
        Promise.all(
          list.map(async (c) => {
            try {
              await fetch(base + c.path, c.init as RequestInit);
              return { name: c.name, readable: true };
            } catch (err) {
              return { name: c.name, readable: false, error: String(err) };
            }
          }),
        ),
      { base, list: calls as CrossOriginCall[] },
    );
    const collect = (): ReceivedResponse[] => {
      const out: ReceivedResponse[] = [];
      for (const [id, list] of received) {
        const req = requests.get(id);
        for (const r of list)
          out.push({
            url: r.url ?? req?.url ?? '(unknown)',
            type: r.type ?? req?.type ?? 'ExtraInfo',
            status: r.status,
            headers: r.headers,
          });
      }
      return out;
    };
    // Wait (bounded) until every call has an answer's headers (the preflight's, for a preflighted one): on a loaded
    // machine they can trail the settled fetch by far more than a fixed pause.
    const refused = (): CorsRefusal[] =>
      [...corsErrors].map(([id, corsError]) => ({ url: requests.get(id)?.url ?? '(unknown)', corsError }));
    const answered = () =>
      calls.every((c) => collect().some((r) => r.url === base + c.path) || refused().some((r) => r.url === base + c.path));
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && !answered()) await new Promise((r) => setTimeout(r, 50));
    // A late ExtraInfo may still carry the header that matters.
    await new Promise((r) => setTimeout(r, 150));
    const responses = collect();
    return {
      pageOrigin: origin,
      outcomes,
      responses: responses.filter((r) => r.url.startsWith(base)),
      refusals: refused().filter((r) => r.url.startsWith(base)),
    };
  } finally {
    await browser.close();
    await new Promise((r) => server.close(r));
  }
}

const lower = (h: Record<string, unknown>): Record<string, string> =>
  Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), String(v)]));
