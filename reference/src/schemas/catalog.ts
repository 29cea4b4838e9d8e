// Catalog records (the spec does not show their fields: the reference's choice, published in /openapi.json).
import { z } from 'zod';

export const handleSchema = z
  .string()
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/)
  .max(120)
  .describe('URL-safe product or collection handle.');
export const variantIdSchema = z
  .string()
  .regex(/^var_[a-z0-9]{4,32}$/)
  .describe('Variant id.');

export const variantSchema = z
  .object({
    id: variantIdSchema,
    sku: z.string(),
    title: z.string(),
    price_cents: z.number().int().positive(),
    currency: z.string().length(3),
    available_quantity: z.number().int().min(0),
    available: z.boolean(),
  })
  .meta({ id: 'Variant' });

export const productSchema = z
  .object({
    id: z.string(),
    handle: handleSchema,
    title: z.string(),
    description: z.string(),
    vendor: z.string(),
    tags: z.array(z.string()),
    collections: z.array(handleSchema),
    variants: z.array(variantSchema),
  })
  .meta({ id: 'Product' });

export const productPageSchema = z
  .object({
    items: z.array(productSchema),
    next_cursor: z.string().nullable().describe('Pass as `cursor` for the next page; null on the last page.'),
  })
  .meta({ id: 'ProductPage' });

export const collectionSchema = z
  .object({
    id: z.string(),
    handle: handleSchema,
    title: z.string(),
    description: z.string(),
    product_count: z.number().int().min(0),
  })
  .meta({ id: 'Collection' });

export const collectionListSchema = z.object({ items: z.array(collectionSchema) }).meta({ id: 'CollectionList' });

export const searchProductsQuery = z.object({
  q: z.string().trim().min(1).max(200).optional().describe('Words matched against title, description, vendor and tags.'),
  collection: handleSchema.optional().describe('Only products of this collection.'),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/)
    .optional()
    .describe('Opaque cursor from `next_cursor`.'),
});

export const getProductParams = z.object({ handle: handleSchema });
