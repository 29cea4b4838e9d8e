import { z } from 'zod';

export const healthSchema = z
  .object({
    status: z.literal('ok'),
    version: z.string(),
    checks: z.object({ database: z.literal('ok') }),
  })
  .meta({ id: 'Health' });
