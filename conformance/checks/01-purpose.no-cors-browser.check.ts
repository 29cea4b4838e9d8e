// Spec part 1, What the service does, rule 7: "no CORS support (no browser calls the service cross-origin)", judged the
// way it matters: a real browser (Chromium) on a page of another origin calls the target with fetch, and must refuse
// every answer to the page; no answer, preflight included, carries an Access-Control-* header.
import { check, notApplicable, test } from '../engine/runner/check.js';
import { browserAvailable, callCrossOrigin, noBrowserReason, type CrossOriginCall } from '../engine/transport/browser.js';
import { failSetup, failSoft } from '../lib/assert.js';
import { customerToken } from '../lib/callers.js';

// Killed by a server that answers with Access-Control-Allow-Origin (echoing the Origin, or *), Allow-Credentials, or a
// preflight that allows the method and headers (self-test defect purpose.cors-allowed).
test(
  ...check(
    {
      id: 'purpose.no-cors.browser',
      title: 'a browser page of another origin cannot read any answer: simple, credentialed and preflighted fetches are refused',
      clauses: ['PUR-PROTO-3'],
    },
    async (shop) => {
      if (!browserAvailable()) return notApplicable(noBrowserReason());
      const token = await customerToken(shop);
      const calls: CrossOriginCall[] = [
        { name: 'a simple GET', path: '/v1/catalog/products', init: { method: 'GET' } },
        { name: 'a credentialed GET', path: '/v1/cart', init: { method: 'GET', credentials: 'include' } },
        {
          name: 'a preflighted POST (Authorization, JSON)',
          path: '/v1/cart/items',
          init: {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ variant_id: 'var_x', quantity: 1 }),
          },
        },
      ];
      // Reached: the browser saw the answer's headers, or refused an answer it received (a CORS error).
      const reached = (r: { responses: { url: string }[]; refusals: { url: string }[] }) =>
        [...r.responses, ...r.refusals].some((x) => x.url.includes('/v1/catalog/products'));
      // A browser start on a loaded machine can lose its first page's events: one fresh browser more before judging.
      let seen = await callCrossOrigin(shop.params.baseUrl, calls);
      if (!reached(seen)) seen = await callCrossOrigin(shop.params.baseUrl, calls);
      const { pageOrigin, outcomes, responses, refusals } = seen;
      shop.info.annotations.push({
        type: 'note',
        description: `page origin ${pageOrigin}; ${responses.length} responses seen by the browser; CORS errors: ${refusals.map((r) => r.corsError).join(', ') || 'none'}`,
      });
      // A browser that never reached the target refuses everything for nothing: the answers must have arrived.
      if (!reached(seen))
        failSetup('the simple GET from the browser', 'an answer from the target, seen by the browser', 'none arrived', {
          clause: 'PUR-PROTO-3',
        });
      for (const o of outcomes) {
        if (o.readable)
          failSoft(`${o.name} from ${pageOrigin}`, 'refused by the browser (no CORS)', 'the page read the answer', {
            clause: 'PUR-PROTO-3',
          });
      }
      for (const r of responses) {
        const cors = Object.entries(r.headers).filter(([k]) => k.startsWith('access-control-'));
        if (cors.length > 0)
          failSoft(`${r.type || 'response'} ${r.status} for ${r.url}`, 'no Access-Control-* header', Object.fromEntries(cors), {
            clause: 'PUR-PROTO-3',
          });
      }
    },
  ),
);
