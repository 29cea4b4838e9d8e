// Writes fixtures/seed.json: the reference server's seed data (catalog, accounts, recovery operations).
// Deterministic: no randomness, fixed dates. Run: npx tsx scripts/gen-seed.ts
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { seedSchema, type Seed } from '../contract/seed.js';
import { priceOrder } from '../reference/src/pricing.js';

type Collection = Seed['collections'][number];
type Product = Seed['products'][number];
type Variant = Product['variants'][number];
type Account = Seed['accounts'][number];
type Address = Account['addresses'][number];
type PaymentMethod = Account['paymentMethods'][number];
type Order = Account['orders'][number];
type Recovery = Seed['recoveryOperations'][number];

// ---------------------------------------------------------------------------------------------------------------
// Collections
// ---------------------------------------------------------------------------------------------------------------
const collections: Collection[] = [
  { id: 'col_apparel', handle: 'apparel', title: 'Apparel', description: 'Everyday clothing made from natural fibres, built to last.' },
  { id: 'col_home', handle: 'home', title: 'Home', description: 'Kitchen, bedding and decor for a calmer home.' },
  { id: 'col_outdoor', handle: 'outdoor', title: 'Outdoor', description: 'Dependable gear for trails, campsites and rainy commutes.' },
  {
    id: 'col_accessories',
    handle: 'accessories',
    title: 'Accessories',
    description: 'Bags, wallets and small goods that finish the outfit.',
  },
];

// ---------------------------------------------------------------------------------------------------------------
// Products. Variant ids are var_PPVV (product number, variant number); SKUs are SKUBASE-VARIANTCODE.
// ---------------------------------------------------------------------------------------------------------------
type VariantSpec = [title: string, code: string, priceCents: number, stock: number];
interface ProductSpec {
  handle: string;
  title: string;
  description: string;
  vendor: string;
  tags: string[];
  collections: string[];
  skuBase: string;
  variants: VariantSpec[];
}

const productSpecs: ProductSpec[] = [
  // Apparel
  {
    handle: 'organic-cotton-tee',
    title: 'Organic Cotton Tee',
    vendor: 'Northwind Basics',
    skuBase: 'NWB-TEE',
    description: 'A midweight crew-neck tee in GOTS-certified organic cotton with a relaxed, true-to-size fit.',
    tags: ['cotton', 'organic', 'tee', 'unisex'],
    collections: ['apparel'],
    variants: [
      ['Small', 'S', 2800, 40],
      ['Medium', 'M', 2800, 55],
      ['Large', 'L', 2800, 38],
      ['X-Large', 'XL', 2800, 0],
    ],
  },
  {
    handle: 'merino-crew-sweater',
    title: 'Merino Crew Sweater',
    vendor: 'Fjell Knitwear',
    skuBase: 'FJK-MCS',
    description: 'Fine-gauge extra-fine merino wool sweater that regulates temperature and resists odour.',
    tags: ['merino', 'wool', 'knitwear'],
    collections: ['apparel'],
    variants: [
      ['Heather Grey / M', 'GRY-M', 8900, 12],
      ['Heather Grey / L', 'GRY-L', 8900, 9],
      ['Navy / M', 'NVY-M', 8900, 14],
    ],
  },
  {
    handle: 'waxed-canvas-field-jacket',
    title: 'Waxed Canvas Field Jacket',
    vendor: 'Harlow Supply Co.',
    skuBase: 'HSC-WFJ',
    description: 'Water-resistant waxed cotton canvas jacket with a corduroy collar and four bellowed pockets.',
    tags: ['jacket', 'waxed-canvas', 'outerwear'],
    collections: ['apparel', 'outdoor'],
    variants: [
      ['Small', 'S', 18500, 7],
      ['Medium', 'M', 18500, 3],
      ['Large', 'L', 18500, 9],
    ],
  },
  {
    handle: 'relaxed-chino-trousers',
    title: 'Relaxed Chino Trousers',
    vendor: 'Northwind Basics',
    skuBase: 'NWB-CHN',
    description: 'Garment-dyed stretch twill chinos with a relaxed seat and tapered leg.',
    tags: ['chinos', 'trousers', 'twill'],
    collections: ['apparel'],
    variants: [
      ['30 x 30', '3030', 6800, 18],
      ['32 x 32', '3232', 6800, 25],
      ['34 x 32', '3432', 6800, 16],
    ],
  },
  {
    handle: 'linen-button-down-shirt',
    title: 'Linen Button-Down Shirt',
    vendor: 'Costa Linen',
    skuBase: 'CSL-LBD',
    description: 'Breathable European flax linen shirt, pre-washed for softness, with mother-of-pearl buttons.',
    tags: ['linen', 'shirt', 'summer'],
    collections: ['apparel'],
    variants: [
      ['White / S', 'WHT-S', 7400, 20],
      ['White / M', 'WHT-M', 7400, 22],
      ['White / L', 'WHT-L', 7400, 15],
    ],
  },
  {
    handle: 'everyday-fleece-hoodie',
    title: 'Everyday Fleece Hoodie',
    vendor: 'Northwind Basics',
    skuBase: 'NWB-HOD',
    description: 'Brushed-back cotton fleece hoodie with a lined hood and kangaroo pocket.',
    tags: ['hoodie', 'fleece', 'unisex'],
    collections: ['apparel'],
    variants: [
      ['Oatmeal / M', 'OAT-M', 6200, 30],
      ['Charcoal / L', 'CHR-L', 6200, 27],
    ],
  },
  {
    handle: 'ribbed-wool-beanie',
    title: 'Ribbed Wool Beanie',
    vendor: 'Fjell Knitwear',
    skuBase: 'FJK-BNE',
    description: 'Chunky ribbed beanie knitted from lambswool with a fold-over cuff.',
    tags: ['beanie', 'wool', 'winter'],
    collections: ['apparel', 'accessories'],
    variants: [
      ['Charcoal', 'CHR', 2400, 5000], // a checkout variant: the checks order it (docs/seed.md)
      ['Rust', 'RST', 2400, 44],
    ],
  },
  // Home
  {
    handle: 'stoneware-mug-set',
    title: 'Stoneware Mug Set (4)',
    vendor: 'Kiln & Co.',
    skuBase: 'KLN-MUG',
    description: 'Four 12 oz reactive-glaze stoneware mugs, dishwasher and microwave safe.',
    tags: ['mugs', 'stoneware', 'kitchen'],
    collections: ['home'],
    variants: [
      ['Speckled White', 'SPW', 4200, 35],
      ['Ocean Blue', 'OCB', 4200, 21],
    ],
  },
  {
    handle: 'linen-duvet-cover',
    title: 'Stonewashed Linen Duvet Cover',
    vendor: 'Costa Linen',
    skuBase: 'CSL-DUV',
    description: 'Stonewashed linen duvet cover with coconut-shell button closure and interior corner ties.',
    tags: ['bedding', 'linen', 'duvet'],
    collections: ['home'],
    variants: [
      ['Queen', 'Q', 14900, 10],
      ['King', 'K', 16900, 8],
    ],
  },
  {
    handle: 'walnut-serving-board',
    title: 'Walnut Serving Board',
    vendor: 'Timber & Grain',
    skuBase: 'TNG-WSB',
    description: 'Solid black walnut board finished with food-safe oil, for cheese, bread and charcuterie.',
    tags: ['kitchen', 'walnut', 'serving'],
    collections: ['home'],
    variants: [['Medium', 'M', 5800, 24]],
  },
  {
    handle: 'soy-wax-candle',
    title: 'Soy Wax Candle',
    vendor: 'Ember House',
    skuBase: 'EMB-CDL',
    description: 'Hand-poured soy wax candle in an amber glass jar with a cotton wick, about 50 hours of burn time.',
    tags: ['candle', 'soy', 'fragrance'],
    collections: ['home'],
    variants: [
      ['Cedar & Sage', 'CDS', 2200, 80],
      ['Black Fig', 'FIG', 2200, 65],
      ['Sea Salt', 'SEA', 2200, 72],
    ],
  },
  {
    handle: 'cast-iron-skillet',
    title: 'Pre-Seasoned Cast Iron Skillet',
    vendor: 'Forge & Hearth',
    skuBase: 'FNH-SKL',
    description: 'Heavy cast iron skillet, pre-seasoned with flaxseed oil, for stovetop, oven and campfire.',
    tags: ['cookware', 'cast-iron', 'camping'],
    collections: ['home', 'outdoor'],
    variants: [
      ['10 inch', '10', 4500, 33],
      ['12 inch', '12', 5900, 26],
    ],
  },
  {
    handle: 'waffle-knit-throw',
    title: 'Waffle Knit Throw Blanket',
    vendor: 'Costa Linen',
    skuBase: 'CSL-THR',
    description: 'Soft cotton waffle-knit throw, 50 x 70 inches, with a hemstitched edge.',
    tags: ['blanket', 'cotton', 'living-room'],
    collections: ['home'],
    variants: [
      ['Natural', 'NAT', 8900, 19],
      ['Sage', 'SGE', 8900, 11],
    ],
  },
  {
    handle: 'ceramic-planter',
    title: 'Matte Ceramic Planter',
    vendor: 'Kiln & Co.',
    skuBase: 'KLN-PLT',
    description: 'Matte-glazed ceramic planter with a drainage hole and matching saucer.',
    tags: ['planter', 'ceramic', 'plants'],
    collections: ['home'],
    variants: [
      ['Small', 'S', 1800, 48],
      ['Medium', 'M', 2800, 36],
      ['Large', 'L', 3900, 17],
    ],
  },
  {
    handle: 'pour-over-coffee-kit',
    title: 'Pour-Over Coffee Kit',
    vendor: 'Forge & Hearth',
    skuBase: 'FNH-POC',
    description: 'Glass carafe, stainless steel dripper and 100 unbleached filters for a clean, bright cup.',
    tags: ['coffee', 'kitchen', 'gift'],
    collections: ['home'],
    variants: [['Standard', 'STD', 6400, 29]],
  },
  // Outdoor
  {
    handle: 'ultralight-two-person-tent',
    title: 'Ultralight Two-Person Tent',
    vendor: 'Ridgeline Outfitters',
    skuBase: 'RDG-TNT',
    description: 'Freestanding three-season tent weighing 1.3 kg, with two doors, two vestibules and a silnylon fly.',
    tags: ['tent', 'backpacking', 'ultralight'],
    collections: ['outdoor'],
    variants: [['Two-Person', '2P', 34900, 6]],
  },
  {
    handle: 'insulated-water-bottle',
    title: 'Insulated Water Bottle',
    vendor: 'Ridgeline Outfitters',
    skuBase: 'RDG-BTL',
    description: 'Double-wall vacuum-insulated stainless bottle that keeps drinks cold for 24 hours.',
    tags: ['bottle', 'hydration', 'stainless'],
    collections: ['outdoor', 'accessories'],
    variants: [
      ['24 oz', '24', 3200, 90],
      ['32 oz', '32', 3500, 75],
    ],
  },
  {
    handle: 'down-sleeping-bag',
    title: '20°F Down Sleeping Bag',
    vendor: 'Ridgeline Outfitters',
    skuBase: 'RDG-SLB',
    description: '800-fill responsibly sourced down mummy bag with a draft collar and full-length zip.',
    tags: ['sleeping-bag', 'down', 'backpacking'],
    collections: ['outdoor'],
    variants: [
      ['Regular', 'REG', 27900, 8],
      ['Long', 'LNG', 29900, 5],
    ],
  },
  {
    handle: 'carbon-trekking-poles',
    title: 'Carbon Trekking Poles',
    vendor: 'Summit Line',
    skuBase: 'SML-TRK',
    description: 'Three-section carbon fibre poles with cork grips and quick-lock adjustment. Sold as a pair.',
    tags: ['trekking', 'hiking', 'carbon'],
    collections: ['outdoor'],
    variants: [['Pair', 'PR', 12900, 14]],
  },
  {
    handle: 'rechargeable-headlamp',
    title: 'Rechargeable Headlamp',
    vendor: 'Summit Line',
    skuBase: 'SML-HDL',
    description: '400-lumen USB-C rechargeable headlamp with red night mode and lockout.',
    tags: ['headlamp', 'lighting', 'camping'],
    collections: ['outdoor'],
    variants: [
      ['Black', 'BLK', 3900, 52],
      ['Orange', 'ORG', 3900, 31],
    ],
  },
  {
    handle: 'packable-rain-shell',
    title: 'Packable Rain Shell',
    vendor: 'Harlow Supply Co.',
    skuBase: 'HSC-RSH',
    description: 'Seam-taped 2.5-layer waterproof shell that packs into its own chest pocket.',
    tags: ['rain', 'jacket', 'waterproof'],
    collections: ['outdoor', 'apparel'],
    variants: [
      ['Small', 'S', 13900, 13],
      ['Medium', 'M', 13900, 17],
      ['Large', 'L', 13900, 10],
    ],
  },
  {
    handle: 'trail-running-vest',
    title: 'Trail Running Vest 5L',
    vendor: 'Summit Line',
    skuBase: 'SML-VST',
    description: 'Lightweight 5-litre running vest with two soft flasks and stretch mesh pockets.',
    tags: ['running', 'hydration', 'trail'],
    collections: ['outdoor'],
    variants: [
      ['Small', 'S', 11500, 6],
      ['Medium', 'M', 11500, 11],
      ['Large', 'L', 11500, 0],
    ],
  },
  {
    handle: 'folding-camp-chair',
    title: 'Folding Camp Chair',
    vendor: 'Ridgeline Outfitters',
    skuBase: 'RDG-CHR',
    description: 'Aluminium-frame camp chair with a breathable mesh back, cup holder and carry bag.',
    tags: ['camping', 'chair', 'furniture'],
    collections: ['outdoor'],
    variants: [['Forest Green', 'GRN', 7900, 22]],
  },
  // Accessories
  {
    handle: 'leather-card-wallet',
    title: 'Leather Card Wallet',
    vendor: 'Harlow Supply Co.',
    skuBase: 'HSC-WLT',
    description: 'Slim vegetable-tanned leather card wallet with four card slots and a centre pocket.',
    tags: ['wallet', 'leather', 'gift'],
    collections: ['accessories'],
    variants: [
      ['Tan', 'TAN', 4800, 41],
      ['Black', 'BLK', 4800, 37],
    ],
  },
  {
    handle: 'canvas-tote-bag',
    title: 'Heavyweight Canvas Tote',
    vendor: 'Northwind Basics',
    skuBase: 'NWB-TOT',
    description: '18 oz cotton canvas tote with leather handles and an interior zip pocket.',
    tags: ['tote', 'canvas', 'bag'],
    collections: ['accessories'],
    variants: [['Natural', 'NAT', 3200, 5000]], // a checkout variant (docs/seed.md)
  },
  {
    handle: 'polarized-sunglasses',
    title: 'Polarized Sunglasses',
    vendor: 'Coastline Optics',
    skuBase: 'CLO-SUN',
    description: 'Acetate frames with polarized, UV400 lenses and a protective hard case.',
    tags: ['sunglasses', 'polarized', 'summer'],
    collections: ['accessories', 'outdoor'],
    variants: [
      ['Tortoise', 'TRT', 8500, 19],
      ['Matte Black', 'MBK', 8500, 23],
    ],
  },
  {
    handle: 'full-grain-leather-belt',
    title: 'Full-Grain Leather Belt',
    vendor: 'Harlow Supply Co.',
    skuBase: 'HSC-BLT',
    description: 'Full-grain bridle leather belt with a solid brass buckle, 1.25 inches wide.',
    tags: ['belt', 'leather'],
    collections: ['accessories', 'apparel'],
    variants: [
      ['32', '32', 5600, 12],
      ['34', '34', 5600, 15],
      ['36', '36', 5600, 14],
      ['38', '38', 5600, 9],
    ],
  },
  {
    handle: 'everyday-backpack',
    title: 'Everyday Backpack 20L',
    vendor: 'Ridgeline Outfitters',
    skuBase: 'RDG-BPK',
    description: 'Recycled ripstop backpack with a padded laptop sleeve, water-bottle pockets and a lifetime warranty.',
    tags: ['backpack', 'bag', 'recycled'],
    collections: ['accessories', 'outdoor'],
    variants: [
      ['Black', 'BLK', 11900, 27],
      ['Olive', 'OLV', 11900, 18],
    ],
  },
];

const pad = (n: number, width: number): string => String(n).padStart(width, '0');

const products: Product[] = productSpecs.map((p, pi) => ({
  id: `prod_${pad(pi + 1, 4)}`,
  handle: p.handle,
  title: p.title,
  description: p.description,
  vendor: p.vendor,
  tags: p.tags,
  collections: p.collections,
  variants: p.variants.map(([title, code, priceCents, stock], vi): Variant => ({
    id: `var_${pad(pi + 1, 2)}${pad(vi + 1, 2)}`,
    sku: `${p.skuBase}-${code}`,
    title,
    priceCents,
    currency: 'USD',
    stock,
  })),
}));

const variantsById = new Map<string, Variant>();
for (const p of products) for (const v of p.variants) variantsById.set(v.id, v);
const variantIdBySku = new Map<string, string>();
for (const v of variantsById.values()) variantIdBySku.set(v.sku, v.id);

// ---------------------------------------------------------------------------------------------------------------
// Accounts
// ---------------------------------------------------------------------------------------------------------------
const card = (
  owner: string,
  n: number,
  brand: PaymentMethod['brand'],
  last4: string,
  expMonth: number,
  expYear: number,
): PaymentMethod => ({ id: `pm_${owner}${pad(n, 2)}`, brand, last4, expMonth, expYear, providerRef: `pm_card_${brand}_${last4}` });

interface OrderSpec {
  status: Order['status'];
  placedAt: string;
  lines: [sku: string, quantity: number][];
  addressId: string;
  paymentMethodId: string;
}

interface AccountSpec extends Omit<Account, 'orders'> {
  orders: OrderSpec[];
}

const accountSpecs: AccountSpec[] = [
  {
    sub: 'cust_ada',
    email: 'ada.lovelace@example.com',
    displayName: 'Ada Lovelace',
    state: 'active',
    selfServiceEligible: true,
    addresses: [
      {
        id: 'addr_ada01',
        name: 'Ada Lovelace',
        line1: '12 Analytical Way',
        line2: 'Apt 4B',
        city: 'Brooklyn',
        region: 'NY',
        postalCode: '11201',
        country: 'US',
        phone: '+1 718 555 0101',
      },
      {
        id: 'addr_ada02',
        name: 'Ada Lovelace',
        line1: '400 Engine Street',
        line2: null,
        city: 'Boston',
        region: 'MA',
        postalCode: '02110',
        country: 'US',
        phone: null,
      },
    ],
    paymentMethods: [card('ada', 1, 'visa', '4242', 8, 2028), card('ada', 2, 'amex', '8431', 3, 2030)],
    orders: [
      {
        status: 'delivered',
        placedAt: '2026-01-08T14:22:05Z',
        lines: [
          ['NWB-TEE-M', 2],
          ['KLN-MUG-SPW', 1],
        ],
        addressId: 'addr_ada01',
        paymentMethodId: 'pm_ada01',
      },
      {
        status: 'refunded',
        placedAt: '2026-02-03T09:41:17Z',
        lines: [['FJK-MCS-NVY-M', 1]],
        addressId: 'addr_ada01',
        paymentMethodId: 'pm_ada02',
      },
      {
        status: 'fulfilled',
        placedAt: '2026-03-21T18:05:44Z',
        lines: [
          ['RDG-BTL-32', 2],
          ['SML-HDL-BLK', 1],
        ],
        addressId: 'addr_ada02',
        paymentMethodId: 'pm_ada01',
      },
      {
        status: 'pending_payment',
        placedAt: '2026-04-14T11:30:00Z',
        lines: [['EMB-CDL-CDS', 3]],
        addressId: 'addr_ada01',
        paymentMethodId: 'pm_ada01',
      },
    ],
  },
  {
    sub: 'cust_ben',
    email: 'ben.okafor@example.com',
    displayName: 'Ben Okafor',
    state: 'active',
    selfServiceEligible: true,
    addresses: [
      {
        id: 'addr_ben01',
        name: 'Ben Okafor',
        line1: '2201 Larkin Street',
        line2: null,
        city: 'San Francisco',
        region: 'CA',
        postalCode: '94109',
        country: 'US',
        phone: '+1 415 555 0142',
      },
      {
        id: 'addr_ben02',
        name: 'Ben Okafor',
        line1: '88 Market Street',
        line2: 'Suite 1200',
        city: 'San Francisco',
        region: 'CA',
        postalCode: '94105',
        country: 'US',
        phone: '+1 415 555 0199',
      },
      {
        id: 'addr_ben03',
        name: 'Grace Okafor',
        line1: '17 Pine Ridge Road',
        line2: null,
        city: 'Bend',
        region: 'OR',
        postalCode: '97701',
        country: 'US',
        phone: null,
      },
    ],
    paymentMethods: [card('ben', 1, 'mastercard', '5100', 11, 2027), card('ben', 2, 'visa', '1881', 6, 2029)],
    orders: [
      {
        status: 'delivered',
        placedAt: '2026-01-15T20:12:33Z',
        lines: [
          ['RDG-TNT-2P', 1],
          ['RDG-SLB-REG', 1],
        ],
        addressId: 'addr_ben01',
        paymentMethodId: 'pm_ben01',
      },
      {
        status: 'return_requested',
        placedAt: '2026-02-27T16:48:09Z',
        lines: [['HSC-RSH-M', 1]],
        addressId: 'addr_ben01',
        paymentMethodId: 'pm_ben01',
      },
      {
        status: 'cancelled',
        placedAt: '2026-03-05T08:19:51Z',
        lines: [['CSL-DUV-K', 1]],
        addressId: 'addr_ben02',
        paymentMethodId: 'pm_ben02',
      },
      {
        status: 'paid',
        placedAt: '2026-04-10T13:02:26Z',
        lines: [
          ['SML-TRK-PR', 1],
          ['RDG-CHR-GRN', 2],
        ],
        addressId: 'addr_ben03',
        paymentMethodId: 'pm_ben02',
      },
    ],
  },
  {
    sub: 'cust_chloe',
    email: 'chloe.martin@example.com',
    displayName: 'Chloé Martin',
    state: 'active',
    selfServiceEligible: false,
    addresses: [
      {
        id: 'addr_chloe01',
        name: 'Chloé Martin',
        line1: '14 Rue des Martyrs',
        line2: null,
        city: 'Paris',
        region: null,
        postalCode: '75009',
        country: 'FR',
        phone: '+33 1 55 55 01 23',
      },
    ],
    paymentMethods: [card('chloe', 1, 'visa', '0077', 2, 2031)],
    orders: [
      {
        status: 'delivered',
        placedAt: '2026-01-29T10:55:12Z',
        lines: [
          ['CSL-LBD-WHT-S', 1],
          ['CLO-SUN-TRT', 1],
        ],
        addressId: 'addr_chloe01',
        paymentMethodId: 'pm_chloe01',
      },
      {
        status: 'paid',
        placedAt: '2026-04-12T07:36:40Z',
        lines: [
          ['KLN-PLT-S', 2],
          ['KLN-PLT-L', 1],
        ],
        addressId: 'addr_chloe01',
        paymentMethodId: 'pm_chloe01',
      },
    ],
  },
  {
    sub: 'cust_dev',
    email: 'dev.raman@example.com',
    displayName: 'Dev Raman',
    state: 'active',
    selfServiceEligible: false,
    addresses: [
      {
        id: 'addr_dev01',
        name: 'Dev Raman',
        line1: '905 Congress Avenue',
        line2: 'Unit 310',
        city: 'Austin',
        region: 'TX',
        postalCode: '78701',
        country: 'US',
        phone: '+1 512 555 0175',
      },
      {
        id: 'addr_dev02',
        name: 'Dev Raman',
        line1: '3100 Lakeshore Drive',
        line2: null,
        city: 'Chicago',
        region: 'IL',
        postalCode: '60657',
        country: 'US',
        phone: null,
      },
    ],
    paymentMethods: [card('dev', 1, 'mastercard', '4444', 9, 2029)],
    orders: [
      {
        status: 'delivered',
        placedAt: '2026-02-11T19:27:58Z',
        lines: [
          ['FNH-SKL-12', 1],
          ['FNH-POC-STD', 1],
        ],
        addressId: 'addr_dev01',
        paymentMethodId: 'pm_dev01',
      },
      {
        status: 'cancelled',
        placedAt: '2026-03-02T12:14:03Z',
        lines: [['HSC-WFJ-L', 1]],
        addressId: 'addr_dev01',
        paymentMethodId: 'pm_dev01',
      },
      {
        status: 'fulfilled',
        placedAt: '2026-04-06T15:50:21Z',
        lines: [
          ['RDG-BPK-OLV', 1],
          ['HSC-WLT-BLK', 1],
          ['NWB-TOT-NAT', 2],
        ],
        addressId: 'addr_dev02',
        paymentMethodId: 'pm_dev01',
      },
    ],
  },
  {
    sub: 'cust_eve',
    email: 'eve.nakamura@example.com',
    displayName: 'Eve Nakamura',
    state: 'active',
    selfServiceEligible: true,
    addresses: [
      {
        id: 'addr_eve01',
        name: 'Eve Nakamura',
        line1: '1520 Pike Place',
        line2: null,
        city: 'Seattle',
        region: 'WA',
        postalCode: '98101',
        country: 'US',
        phone: null,
      },
    ],
    paymentMethods: [],
    orders: [],
  },
  {
    sub: 'cust_deleting',
    email: 'dana.whitfield@example.com',
    displayName: 'Dana Whitfield',
    state: 'deleting',
    selfServiceEligible: true,
    addresses: [],
    paymentMethods: [],
    orders: [],
  },
  {
    sub: 'cust_deleted',
    email: 'frank.osei@example.com',
    displayName: 'Frank Osei',
    state: 'deleted',
    selfServiceEligible: false,
    addresses: [],
    paymentMethods: [],
    orders: [],
  },
  {
    sub: 'cust_transition',
    email: 'tara.lindqvist@example.com',
    displayName: 'Tara Lindqvist',
    state: 'contact_transition',
    selfServiceEligible: true,
    addresses: [
      {
        id: 'addr_tara01',
        name: 'Tara Lindqvist',
        line1: '77 Harbor View Lane',
        line2: null,
        city: 'Portland',
        region: 'ME',
        postalCode: '04101',
        country: 'US',
        phone: '+1 207 555 0163',
      },
    ],
    paymentMethods: [],
    orders: [],
  },
];

// Checkout accounts: active, one US address and one visa card each, no orders. The conformance checks that place orders
// with a saved card use one of these per check (a fresh subject has no saved card), so parallel checks never share a cart.
// The card's provider reference steers the simulated payment provider: `decline` is declined, `async` stays pending.
const checkoutCard = (suffix: string, last4: string, providerRef: string): PaymentMethod => ({
  id: `pm_chk${suffix}`,
  brand: 'visa',
  last4,
  expMonth: 12,
  expYear: 2030,
  providerRef,
});
const CHECKOUT_CITIES: [city: string, region: string, postalCode: string][] = [
  ['Denver', 'CO', '80202'],
  ['Madison', 'WI', '53703'],
  ['Savannah', 'GA', '31401'],
  ['Tucson', 'AZ', '85701'],
  ['Burlington', 'VT', '05401'],
  ['Boise', 'ID', '83702'],
  ['Asheville', 'NC', '28801'],
  ['Santa Fe', 'NM', '87501'],
  ['Omaha', 'NE', '68102'],
  ['Richmond', 'VA', '23219'],
  ['Duluth', 'MN', '55802'],
];
function usAccount(sub: string, email: string, displayName: string, addressId: string, n: number, cards: PaymentMethod[]): AccountSpec {
  const [city, region, postalCode] = CHECKOUT_CITIES[n]!;
  return {
    sub,
    email,
    displayName,
    state: 'active',
    selfServiceEligible: false,
    addresses: [
      {
        id: addressId,
        name: displayName,
        line1: `${100 + n} Main Street`,
        line2: null,
        city,
        region,
        postalCode,
        country: 'US',
        phone: null,
      },
    ],
    paymentMethods: cards,
    orders: [],
  };
}
accountSpecs.push(
  ...[1, 2, 3, 4, 5, 6, 7, 8].map((n) =>
    usAccount(`cust_checkout_${n}`, `checkout.${n}@example.com`, `Checkout Shopper ${n}`, `addr_chk${n}`, n - 1, [
      checkoutCard(String(n), '4242', `pm_card_visa_chk${n}`),
    ]),
  ),
  usAccount('cust_checkout_async', 'checkout.async@example.com', 'Checkout Shopper Async', 'addr_chkasync', 8, [
    checkoutCard('async', '3184', 'pm_card_visa_async'),
  ]),
  usAccount('cust_checkout_decline', 'checkout.decline@example.com', 'Checkout Shopper Decline', 'addr_chkdecline', 9, [
    checkoutCard('decline', '0002', 'pm_card_visa_decline'),
  ]),
  // An address and no card: the admitted card setups below belong to it, for the payment webhook to complete.
  usAccount('cust_setup', 'card.setup@example.com', 'Card Setup Shopper', 'addr_setup01', 10, []),
);

// Order ids and numbers run in placedAt order across all accounts: ord_1001 / #1001, ord_1002 / #1002, ...
const chronological = accountSpecs
  .flatMap((a) => a.orders.map((o) => ({ sub: a.sub, o })))
  .sort((x, y) => x.o.placedAt.localeCompare(y.o.placedAt));
const orderNumberOf = new Map<OrderSpec, number>(chronological.map(({ o }, i) => [o, 1001 + i]));

function buildOrder(account: AccountSpec, spec: OrderSpec): Order {
  const n = orderNumberOf.get(spec);
  if (n === undefined) throw new Error('unnumbered order');
  const lines = spec.lines.map(([sku, quantity]) => {
    const variantId = variantIdBySku.get(sku);
    const variant = variantId === undefined ? undefined : variantsById.get(variantId);
    if (variantId === undefined || variant === undefined) throw new Error(`${account.sub}: unknown SKU ${sku}`);
    return { variantId, quantity, unitPriceCents: variant.priceCents };
  });
  const address = account.addresses.find((a) => a.id === spec.addressId);
  if (!address) throw new Error(`${account.sub}: address ${spec.addressId} is not the account's`);
  if (!account.paymentMethods.some((p) => p.id === spec.paymentMethodId))
    throw new Error(`${account.sub}: payment method ${spec.paymentMethodId} is not the account's`);
  // The store's one pricing rule (reference/src/pricing.ts), the same that checkout applies.
  const totals = priceOrder(lines, address.country);
  return {
    id: `ord_${n}`,
    number: `#${n}`,
    status: spec.status,
    placedAt: spec.placedAt,
    currency: 'USD',
    lines,
    shippingCents: totals.shippingCents,
    taxCents: totals.taxCents,
    addressId: spec.addressId,
    paymentMethodId: spec.paymentMethodId,
  };
}

const accounts: Account[] = accountSpecs.map((a) => ({
  sub: a.sub,
  email: a.email,
  displayName: a.displayName,
  state: a.state,
  selfServiceEligible: a.selfServiceEligible,
  addresses: a.addresses as Address[],
  paymentMethods: a.paymentMethods,
  orders: a.orders.map((o) => buildOrder(a, o)),
}));

// ---------------------------------------------------------------------------------------------------------------
// Recovery operations
// ---------------------------------------------------------------------------------------------------------------
const recoveryOperations: Recovery[] = [
  { operationId: 'recop_0001', subject: 'cust_deleting', purpose: 'delete', phase: 'provider_pending', pendingEmail: null },
  {
    operationId: 'recop_0002',
    subject: 'cust_transition',
    purpose: 'email',
    phase: 'proof_pending',
    pendingEmail: 'tara.lindqvist@example.org',
  },
  { operationId: 'recop_0003', subject: 'cust_deleted', purpose: 'delete', phase: 'complete', pendingEmail: null },
  { operationId: 'recop_0004', subject: 'cust_chloe', purpose: 'email', phase: 'approved', pendingEmail: 'chloe.martin@example.net' },
  { operationId: 'recop_0005', subject: 'cust_dev', purpose: 'delete', phase: 'cancelled', pendingEmail: null },
  { operationId: 'recop_0006', subject: 'cust_ben', purpose: 'email', phase: 'complete', pendingEmail: null },
];

// ---------------------------------------------------------------------------------------------------------------
// Card setups the storefront admitted, for the payment webhook to complete (one per webhook check that completes one).
// ---------------------------------------------------------------------------------------------------------------
const cardSetups: Seed['cardSetups'] = [1, 2, 3, 4].map((n) => ({ id: `seti_admitted${pad(n, 4)}`, accountSub: 'cust_setup' }));

// ---------------------------------------------------------------------------------------------------------------
// Cross-reference checks the schema cannot express, then validate and write.
// ---------------------------------------------------------------------------------------------------------------
function assertUnique(what: string, values: string[]): void {
  const seen = new Set<string>();
  for (const v of values) {
    if (seen.has(v)) throw new Error(`duplicate ${what}: ${v}`);
    seen.add(v);
  }
}

const allVariants = products.flatMap((p) => p.variants);
const allOrders = accounts.flatMap((a) => a.orders);
assertUnique(
  'collection id',
  collections.map((c) => c.id),
);
assertUnique(
  'collection handle',
  collections.map((c) => c.handle),
);
assertUnique(
  'product id',
  products.map((p) => p.id),
);
assertUnique(
  'product handle',
  products.map((p) => p.handle),
);
assertUnique(
  'variant id',
  allVariants.map((v) => v.id),
);
assertUnique(
  'SKU',
  allVariants.map((v) => v.sku),
);
assertUnique(
  'account sub',
  accounts.map((a) => a.sub),
);
assertUnique(
  'account email',
  accounts.map((a) => a.email),
);
assertUnique(
  'address id',
  accounts.flatMap((a) => a.addresses.map((x) => x.id)),
);
assertUnique(
  'payment method id',
  accounts.flatMap((a) => a.paymentMethods.map((x) => x.id)),
);
assertUnique(
  'order id',
  allOrders.map((o) => o.id),
);
assertUnique(
  'order number',
  allOrders.map((o) => o.number),
);
assertUnique(
  'recovery operation id',
  recoveryOperations.map((r) => r.operationId),
);
assertUnique(
  'card setup id',
  cardSetups.map((c) => c.id),
);

const collectionHandles = new Set(collections.map((c) => c.handle));
for (const p of products) {
  if (p.collections.length < 1 || p.collections.length > 2) throw new Error(`${p.handle}: must be in 1-2 collections`);
  if (p.variants.length > 4) throw new Error(`${p.handle}: at most 4 variants`);
  for (const c of p.collections) if (!collectionHandles.has(c)) throw new Error(`${p.handle}: unknown collection ${c}`);
  // The two checkout variants hold enough for a whole self-test's orders (docs/seed.md); every other stays small.
  for (const v of p.variants) if (v.stock > 200 && v.id !== 'var_0701' && v.id !== 'var_2501') throw new Error(`${v.id}: stock above 200`);
}
const subs = new Set(accounts.map((a) => a.sub));
for (const r of recoveryOperations) {
  if (!subs.has(r.subject)) throw new Error(`${r.operationId}: unknown subject ${r.subject}`);
  if (r.purpose === 'delete' && r.pendingEmail !== null) throw new Error(`${r.operationId}: delete operations have no pendingEmail`);
}
for (const c of cardSetups) if (!subs.has(c.accountSub)) throw new Error(`${c.id}: unknown account ${c.accountSub}`);

export const seed = seedSchema.parse({
  _comment:
    'Test data of shop-conformance: the reference server loads this seed at start. Fictional store, people and cards; regenerate with `npx tsx scripts/gen-seed.ts`.',
  collections,
  products,
  accounts,
  recoveryOperations,
  cardSetups,
});

// Imported by the freshness test (test/unit/fixtures.test.ts); run as a script, it writes the file.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  writeFileSync(new URL('../fixtures/seed.json', import.meta.url), JSON.stringify(seed, null, 2) + '\n');

  const count = <T extends string>(values: T[]): Record<string, number> =>
    values.reduce<Record<string, number>>((m, v) => ({ ...m, [v]: (m[v] ?? 0) + 1 }), {});
  console.log(
    JSON.stringify({
      collections: seed.collections.length,
      products: seed.products.length,
      variants: allVariants.length,
      accounts: seed.accounts.length,
      ordersByStatus: count(allOrders.map((o) => o.status)),
      recoveryByPhase: count(seed.recoveryOperations.map((r) => r.phase)),
      cardSetups: seed.cardSetups.length,
      stock3: products.filter((p) => p.variants.some((v) => v.stock === 3)).map((p) => p.handle),
      stock0: allVariants.filter((v) => v.stock === 0).map((v) => v.id),
    }),
  );
}
