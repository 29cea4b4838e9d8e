import { z } from 'zod';

export const healthSchema = z.object({
  status: z.enum(['ok', 'degraded']),
  version: z.string(),
  checks: z.object({ database: z.enum(['ok', 'failing']) }),
}).meta({ id: 'Health' });
