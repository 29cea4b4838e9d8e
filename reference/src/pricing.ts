// The store's pricing rule, in one place: checkout previews, saved-card checkout and the seed generator
// (scripts/gen-seed.ts) all compute order totals with this function. Pure: no database, no clock. Integer cents.

export const SHIPPING_CENTS = 595;
/** Orders whose subtotal reaches this ship free. */
export const FREE_SHIPPING_THRESHOLD_CENTS = 7500;
/** Sales tax on the subtotal for US shipping addresses; no tax is charged elsewhere. */
export const US_TAX_PERCENT = 8;

export interface PricedLine {
  unitPriceCents: number;
  quantity: number;
}

export interface Totals {
  subtotalCents: number;
  shippingCents: number;
  taxCents: number;
  totalCents: number;
}

/**
 * Totals of an order from its lines and the country (ISO 3166-1 alpha-2) of the shipping address; `null` when no address is
 * known yet (no tax). Shipping is 595 cents below a 7500-cent subtotal and free from 7500; tax is 8 % of the subtotal for a
 * US address, rounded half up to the cent (integer arithmetic, so no floating-point edge can round the wrong way).
 * Does not check that lines are non-empty: an empty cart is the caller's concern (`cart_empty`).
 */
export function priceOrder(lines: readonly PricedLine[], country: string | null): Totals {
  const subtotalCents = lines.reduce((sum, l) => sum + l.unitPriceCents * l.quantity, 0);
  const shippingCents = subtotalCents >= FREE_SHIPPING_THRESHOLD_CENTS ? 0 : SHIPPING_CENTS;
  const taxCents = country?.toUpperCase() === 'US' ? Math.floor((subtotalCents * US_TAX_PERCENT + 50) / 100) : 0;
  return { subtotalCents, shippingCents, taxCents, totalCents: subtotalCents + shippingCents + taxCents };
}
