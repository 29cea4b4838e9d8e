// A real browser calling the target cross-origin (spec, What the service does 7: no CORS support, "no browser calls the
// service cross-origin"). Chromium (Debian's package, SHOP_CONFORMANCE_CHROMIUM) loads a blank page from a server of
// ours on another origin, and the page calls the target with fetch. What the browser decides (a refused response rejects
// the fetch) and every response header it received, preflights included, come back; the check judges them.
// The second way the suite reaches the target besides engine/wire.ts: the browser's own network stack, on purpose.
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium } from 'playwright-core';

/** Debian's chromium unless SHOP_CONFORMANCE_CHROMIUM names another executable. */
export const chromiumPath = (): string => process.env.SHOP_CONFORMANCE_CHROMIUM || '/usr/bin/chromium';
export const browserAvailable = (): boolean => existsSync(chromiumPath());

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
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
): Promise<{ pageOrigin: string; outcomes: CrossOriginOutcome[]; responses: ReceivedResponse[] }> {
  const { server, origin } = await pageServer();
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: FLAGS });
  try {
    const page = await browser.newPage({ ignoreHTTPSErrors: true });
    // Chrome DevTools Protocol: the raw headers of every response, those the browser then refuses to the page included.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    const requests = new Map<string, { url: string; type: string }>();
    const responses: ReceivedResponse[] = [];
    cdp.on('Network.requestWillBeSent', (e) => requests.set(e.requestId, { url: e.request.url, type: e.type ?? '' }));
    cdp.on('Network.responseReceived', (e) => {
      responses.push({ url: e.response.url, type: e.type, status: e.response.status, headers: lower(e.response.headers) });
    });
    cdp.on('Network.responseReceivedExtraInfo', (e) => {
      const r = requests.get(e.requestId);
      responses.push({ url: r?.url ?? '(unknown)', type: r?.type ?? 'ExtraInfo', status: e.statusCode, headers: lower(e.headers) });
    });
    await page.goto(origin);
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
      { base: baseUrl.replace(/\/$/, ''), list: calls as CrossOriginCall[] },
    );
    // Late ExtraInfo events arrive after the fetch settles.
    await new Promise((r) => setTimeout(r, 200));
    return { pageOrigin: origin, outcomes, responses: responses.filter((r) => r.url.startsWith(baseUrl.replace(/\/$/, ''))) };
  } finally {
    await browser.close();
    await new Promise((r) => server.close(r));
  }
}

const lower = (h: Record<string, unknown>): Record<string, string> =>
  Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), String(v)]));
