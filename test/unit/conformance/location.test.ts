// Vector table for Location resolution (RFC 9110 §10.2.2, RFC 3986 §5): resolved once against the request's URL, then
// placed below the deployment's base URL. A vector without `path` lies outside the base.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lastSegment, pathBelowBase, resolveLocation } from '../../../conformance/lib/location.js';

interface Vector {
  description: string;
  location: string;
  requestUrl: string;
  baseUrl: string;
  url: string;
  path?: string;
}

const PREFIXED = { requestUrl: 'http://host.test/shop/v1/checkouts/saved-card', baseUrl: 'http://host.test/shop' };
const ROOT = { requestUrl: 'http://host.test/v1/checkouts/saved-card', baseUrl: 'http://host.test' };

const vectors: Vector[] = [
  {
    description: 'absolute path at the root',
    location: '/v1/me/orders/ord_1',
    ...ROOT,
    url: 'http://host.test/v1/me/orders/ord_1',
    path: '/v1/me/orders/ord_1',
  },
  {
    description: 'absolute path behind a prefix (the prefix is not added again)',
    location: '/shop/v1/me/orders/ord_1',
    ...PREFIXED,
    url: 'http://host.test/shop/v1/me/orders/ord_1',
    path: '/v1/me/orders/ord_1',
  },
  {
    description: 'full URL behind a prefix',
    location: 'http://host.test/shop/v1/me/orders/ord_1',
    ...PREFIXED,
    url: 'http://host.test/shop/v1/me/orders/ord_1',
    path: '/v1/me/orders/ord_1',
  },
  {
    description: 'relative reference with dot segments',
    location: '../me/orders/ord_1',
    ...PREFIXED,
    url: 'http://host.test/shop/v1/me/orders/ord_1',
    path: '/v1/me/orders/ord_1',
  },
  {
    description: 'scheme and host case, default port',
    location: 'HTTP://HOST.test:80/shop/v1/me/orders/ord_1?x=1',
    ...PREFIXED,
    url: 'http://host.test/shop/v1/me/orders/ord_1?x=1',
    path: '/v1/me/orders/ord_1?x=1',
  },
  { description: 'the prefix missing', location: '/v1/me/orders/ord_1', ...PREFIXED, url: 'http://host.test/v1/me/orders/ord_1' },
  { description: 'a prefix that only starts alike', location: '/shopping/v1/x', ...PREFIXED, url: 'http://host.test/shopping/v1/x' },
  { description: 'another origin', location: 'https://host.test/shop/v1/x', ...PREFIXED, url: 'https://host.test/shop/v1/x' },
];

for (const v of vectors) {
  test(`Location: ${v.description}`, () => {
    const url = resolveLocation(v.location, v.requestUrl);
    assert.equal(url?.href, v.url);
    assert.equal(pathBelowBase(url!, v.baseUrl), v.path);
  });
}

test('a Location that is no URI reference resolves to null; lastSegment decodes', () => {
  assert.equal(resolveLocation('http://[bad', 'http://host.test/'), null);
  assert.equal(lastSegment(new URL('http://h.test/a/b%20c/')), 'b c');
  assert.equal(lastSegment(new URL('http://h.test/')), undefined);
});
