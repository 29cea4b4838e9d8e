// Blind defects of "Versioning" (spec part 9) and of the one-URL rule: old and second paths kept alive as aliases.
import { pathOf } from '../helpers.js';
import { lenient, type Defect } from '../types.js';

/** Website-prefixed paths the checkout reads once had (any of the usual spellings). */
const OLD_CHECKOUT_READ = /^\/v1\/(?:web|website|storefront|site)\/(?:me\/)?(checkout-address|checkout-methods)\/?$/;

export const BLIND_VERSIONING_DEFECTS: readonly Defect[] = [
  // "Earlier website-prefixed paths for the checkout reads no longer exist, and nothing aliases old paths." Broken: the
  // old website paths still answer, proxied to the current ones.
  lenient('blind.versioning.old-checkout-read-alias', 'VER-ROUTES-2', 'website-prefixed checkout-read paths still answer', () => ({
    request(r) {
      const m = OLD_CHECKOUT_READ.exec(pathOf(r));
      return m ? { ...r, path: r.path.replace(pathOf(r), `/v1/me/${m[1]}`) } : r;
    },
  })),
  // Purpose rule 1: "Every operation has exactly one URL." Broken: the product search also answers at /v1/products.
  lenient('blind.versioning.products-second-url', 'PUR-RULE-1', 'searchProducts also answers at /v1/products', () => ({
    request: (r) => (pathOf(r) === '/v1/products' ? { ...r, path: r.path.replace('/v1/products', '/v1/catalog/products') } : r),
  })),
];
