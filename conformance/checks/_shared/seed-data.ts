// The data the checks rely on (those marked `seed: true` need it to exist): the profile's `data` section where it declares
// a member (docs/profile.md, "Data"), else the fixture seed's ids (fixtures/seed.json; docs/seed.md describes every row).
// A member declared null skips the checks that read it, naming the field. Every check reads data from this module and
// from nowhere else. Titles of checks may still name the seed's ids: they describe the check. The named accounts (Ada, Ben,
// …) and their orders are the seed's alone: the checks that read them are reference-level or run where the seed is loaded.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { seedSchema, type Seed } from '../../../contract/seed.js';
import type { Profile } from '../../../contract/profile.js';
import { notApplicable, test } from '../../engine/runner/check.js';
import { runParams } from '../../engine/runner/params.js';

type Data = NonNullable<Profile['data']>;
/** What the profile declares (`data`); absent members are the fixture seed's below. */
const declared: Data = declaredData();

function declaredData(): Data {
  try {
    return runParams().profile.data ?? {};
  } catch {
    return {}; // Listing checks (`clauses`, `run --list`) runs without a target or a profile: the seed's ids.
  }
}

/** A declared value, else the fixture seed's. */
const value = <K extends keyof Data>(field: K, seed: NonNullable<Data[K]>): NonNullable<Data[K]> =>
  (declared[field] ?? seed) as NonNullable<Data[K]>;

/**
 * A declared object, else the fixture seed's; when the profile declares `null` (the deployment holds no such data), any
 * read of it inside a check skips that check, naming the field to fill. Outside a check (module scope, titles) it reads the
 * seed's; objects read from it stay guarded, so a check that reads a value kept from module scope is skipped all the same.
 */
function held<T extends object>(field: keyof Data, seed: T): T {
  if (declared[field] !== null) return (declared[field] as T | undefined) ?? seed;
  return guarded(field, seed);
}

function guarded<T extends object>(field: keyof Data, target: T): T {
  return new Proxy(target, {
    get(obj, key, receiver) {
      let inCheck = true;
      try {
        test.info();
      } catch {
        inCheck = false;
      }
      if (inCheck)
        notApplicable(
          `the profile declares no data.${String(field)} (null): the deployment holds no such data; declare it to run this check`,
        );
      const v: unknown = Reflect.get(obj, key, receiver);
      return typeof v === 'object' && v !== null ? guarded(field, v) : v;
    },
  });
}

// --------------------------------------------------------------------------------------------------------------- catalog

/** A variant with plenty of stock: the cart line most checks add. */
export const VARIANT = value('variant', 'var_0101');
/** A well-stocked variant of another product. */
export const OTHER_VARIANT = value('otherVariant', 'var_0201');
/** The handle of a seeded product (`GET /v1/catalog/products/{handle}`). */
export const PRODUCT_HANDLE = value('productHandle', 'waxed-canvas-field-jacket');
/** A variant with little stock: a line above `stock` is refused. */
export const LOW_STOCK_VARIANT = held('lowStockVariant', { id: 'var_0302', stock: 3 });
/** A variant with no stock. */
export const OUT_OF_STOCK_VARIANT = value('outOfStockVariant', 'var_0104');
/** Well-stocked variants the checkout checks order: the beanie (2400 cents) and the tote (3200 cents). */
export const CHECKOUT_VARIANTS = held('checkoutVariants', { beanie: 'var_0701', tote: 'var_2501' });
/** A well-stocked variant that only the operator stock check names (it adjusts it by +1 then -1), and its product. */
export const ADJUSTABLE_VARIANT = held('adjustableVariant', { id: 'var_1402', handle: 'ceramic-planter' });

/**
 * Every variant id a check may put in a cart: the declared ones, else the seed's (a member declared null holds none). The
 * checks add no other variant, so a cart read is judged by these ids alone: the spec shows no cart record and pins no form of
 * variant id (PUR-RULE-3: the deployment's ids are its own), so no pattern of ids is assumed.
 */
export function knownVariantIds(): string[] {
  const ids = [VARIANT, OTHER_VARIANT, OUT_OF_STOCK_VARIANT];
  const low = declared.lowStockVariant === null ? undefined : (declared.lowStockVariant ?? { id: 'var_0302' });
  const ordered = declared.checkoutVariants === null ? undefined : (declared.checkoutVariants ?? { beanie: 'var_0701', tote: 'var_2501' });
  const adjustable = declared.adjustableVariant === null ? undefined : (declared.adjustableVariant ?? { id: 'var_1402' });
  if (low) ids.push(low.id);
  if (ordered) ids.push(ordered.beanie, ordered.tote);
  if (adjustable) ids.push(adjustable.id);
  return [...new Set(ids)];
}

// -------------------------------------------------------------------------------------------------------------- accounts

/** The named accounts of the fixture seed (docs/seed.md); a profile names its own in `data.accounts`. */
const SEED_ACCOUNTS = {
  /** Ada: active, two addresses (newest first), two cards, four orders (newest first), eligible for self-service. */
  reader: {
    sub: 'cust_ada',
    name: 'Ada Lovelace',
    email: 'ada.lovelace@example.com',
    line1: '12 Analytical Way',
    phone: '+1 718 555 0101',
    last4: ['4242', '8431'],
    /** Prefix of her saved cards' ids. */
    cardPrefix: 'pm_ada',
    orderIds: ['ord_1013', 'ord_1009', 'ord_1004', 'ord_1001'],
    addressIds: ['addr_ada02', 'addr_ada01'],
  },
  other: { sub: 'cust_ben' },
  /** Chloé: active, not eligible for self-service. */
  ineligible: { sub: 'cust_chloe', name: 'Chloé Martin' },
  third: { sub: 'cust_dev' },
  /** Eve: active, an address and no saved card. */
  noCard: { sub: 'cust_eve' },
  /** Pieces of other accounts' data (ids, names, emails) that Ada's reads must never show. */
  foreignData: ['addr_ben', 'pm_ben', 'ord_1002', 'ord_1011', 'Okafor', 'ben.okafor@', 'addr_chloe', 'Chloé', 'Raman', 'pm_dev'],
};
type Accounts = typeof SEED_ACCOUNTS;
const ACCOUNTS: Accounts = held('accounts', SEED_ACCOUNTS as Accounts);

/** The account the read checks read (the seed's Ada). */
export const ADA: Accounts['reader'] = ACCOUNTS.reader;
/** Another account, owner of the `ben*` orders (the seed's Ben). */
export const BEN: Accounts['other'] = ACCOUNTS.other;
/** An account not eligible for self-service (the seed's Chloé). */
export const CHLOE: Accounts['ineligible'] = ACCOUNTS.ineligible;
/** A third account, owner of `devCancelled` (the seed's Dev). */
export const DEV: Accounts['third'] = ACCOUNTS.third;
/** An account with an address and no saved card (the seed's Eve). */
export const EVE: Accounts['noCard'] = ACCOUNTS.noCard;
/** Pieces of other accounts' data (ids, names, emails) that the reader's reads must never show. */
export const NOT_ADAS: readonly string[] = ACCOUNTS.foreignData;

/** One account in each restricted lifecycle state (spec, States and transitions). */
export const ENDED_ACCOUNTS = held('endedAccounts', {
  deleting: 'cust_deleting',
  deleted: 'cust_deleted',
  contactTransition: 'cust_transition',
});

// ---------------------------------------------------------------------------------------------------------------- orders

type Orders = NonNullable<Data['orders']>;
const SEED_ORDERS: Orders = {
  readerDelivered: { id: 'ord_1001', number: '#1001' },
  readerRefunded: { id: 'ord_1004' },
  readerFulfilled: { id: 'ord_1009' },
  readerPendingPayment: { id: 'ord_1013' },
  otherPaid: { id: 'ord_1011' },
  otherCancelled: { id: 'ord_1008' },
  otherReturnRequested: { id: 'ord_1006' },
  thirdCancelled: { id: 'ord_1007' },
};
const declaredOrders: Orders = held('orders', SEED_ORDERS);
const order = <S extends string>(o: Orders[keyof Orders], owner: string, status: S) => ({ ...o, owner, status });
/** Orders by owner and state, with the reference's status names. Checks only read them, or ask for writes the domain refuses. */
export const ORDERS = ordersOf();

function ordersOf() {
  // Read at module scope, a guarded (null) member gives the seed's: the whole is guarded below.
  const orders = {
    adaDelivered: order(declaredOrders.readerDelivered, ADA.sub, 'delivered'),
    adaRefunded: order(declaredOrders.readerRefunded, ADA.sub, 'refunded'),
    adaFulfilled: order(declaredOrders.readerFulfilled, ADA.sub, 'fulfilled'),
    /** The one pending_payment order; the webhook checks settle it, so its state depends on which checks ran. */
    adaPendingPayment: order(declaredOrders.readerPendingPayment, ADA.sub, 'pending_payment'),
    benPaid: order(declaredOrders.otherPaid, BEN.sub, 'paid'),
    benCancelled: order(declaredOrders.otherCancelled, BEN.sub, 'cancelled'),
    benReturnRequested: order(declaredOrders.otherReturnRequested, BEN.sub, 'return_requested'),
    devCancelled: order(declaredOrders.thirdCancelled, DEV.sub, 'cancelled'),
  };
  if (declared.orders === null || declared.accounts === null) return guarded(declared.orders === null ? 'orders' : 'accounts', orders);
  return orders;
}

/** The payment-provider reference of a seeded order's payment. */
export const seedPaymentRef = (orderId: string) => `pi_seed_${orderId}`;
/** Provider references of the seed (cards and payments), which must never leave the service. */
export const SEED_PROVIDER_REF = /pm_card_|pi_seed_/;

// ------------------------------------------------------------------------------------------------------------- checkout

export interface CheckoutAccount {
  sub: string;
  /** Its one saved card. */
  card: string;
  /** Its one US address. */
  address: string;
}

const checkoutAccount = (n: string): CheckoutAccount => ({ sub: `cust_checkout_${n}`, card: `pm_chk${n}`, address: `addr_chk${n}` });

/**
 * Checkout accounts: one US address and one saved card each, no orders. One account per check, so that parallel checks
 * never share a cart. The provider declines the card of `decline` and leaves the payment of `async` pending.
 */
export const CHECKOUT_ACCOUNTS = checkoutAccounts();

/** The checkout account that holds this card, when the profile declares checkout accounts (a lookup that never skips). */
export function checkoutAccountOfCard(card: string): CheckoutAccount | undefined {
  if (declared.checkoutAccounts === null) return undefined;
  const { ordinary, decline, async } = declared.checkoutAccounts ?? {
    ordinary: ['1', '2', '3', '4', '5', '6', '7', '8'].map(checkoutAccount),
    decline: checkoutAccount('decline'),
    async: checkoutAccount('async'),
  };
  return [...ordinary, decline, async].find((a) => a.card === card);
}

function checkoutAccounts() {
  const seed = {
    ordinary: ['1', '2', '3', '4', '5', '6', '7', '8'].map(checkoutAccount),
    decline: checkoutAccount('decline'),
    async: checkoutAccount('async'),
  };
  const { ordinary, decline, async } = declared.checkoutAccounts ?? seed;
  const [a1, a2, a3, a4, a5, a6, a7, a8] = ordinary as [
    CheckoutAccount,
    CheckoutAccount,
    CheckoutAccount,
    CheckoutAccount,
    CheckoutAccount,
    CheckoutAccount,
    CheckoutAccount,
    CheckoutAccount,
  ];
  const byCheck = { 1: a1, 2: a2, 3: a3, 4: a4, 5: a5, 6: a6, 7: a7, 8: a8, decline, async } as const;
  // Declared null: a read inside a check skips it (held), the numbering above being the seed's.
  return declared.checkoutAccounts === null ? held('checkoutAccounts', byCheck) : byCheck;
}

// ---------------------------------------------------------------------------------------------------- recovery operations

/**
 * Recovery operations that no request can change: complete, cancelled, proof_pending and provider_pending (which stays
 * pending however often it is resumed). The approved one (recop_0004) is left out: resuming it completes it for good.
 */
export const RECOVERY_OPERATIONS = held('recoveryOperations', {
  proofPending: { operationId: 'recop_0002', subject: 'cust_transition', purpose: 'email' },
  providerPending: { operationId: 'recop_0001', subject: 'cust_deleting', purpose: 'delete' },
  completeDelete: { operationId: 'recop_0003', subject: 'cust_deleted', purpose: 'delete' },
  completeEmail: { operationId: 'recop_0006', subject: 'cust_ben', purpose: 'email' },
  cancelled: { operationId: 'recop_0005', subject: 'cust_dev', purpose: 'delete' },
} as const);

// ---------------------------------------------------------------------------------------------------------- absent ids

/** Ids in the seed's formats that the seed does not hold: admitted callers get past the guard and then a 4xx. */
export const ABSENT_IDS = { order: 'ord_0000', address: 'addr_0000', variant: 'var_9999', card: 'pm_unknown0' } as const;

// ------------------------------------------------------------------------------------------------------- the whole seed

/** The fixture seed itself (for checks that look a row up by its state), found from source and from dist/ alike. */
export function fixtureSeed(): Seed {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return seedSchema.parse(JSON.parse(readFileSync(join(dir, 'fixtures', 'seed.json'), 'utf8')));
}
