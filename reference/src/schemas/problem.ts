// The problem document (spec, Resources > Problem document), as published in the description documents.
import { z } from 'zod';
import { ERROR_CODES } from '../../../contract/errors.js';

export const problemSchema = z
  .object({
    type: z.url().describe('`<docs_url>/api/problems/<error>`'),
    title: z.string().describe('HTTP reason phrase of the status.'),
    status: z.number().int().min(400).max(599),
    error: z.enum(ERROR_CODES as [string, ...string[]]).describe('Stable machine code; clients key on it.'),
    detail: z.string().optional().describe('Human text; never present on internal_error.'),
    instance: z.string().describe('The X-Request-Id of the request.'),
    issues: z
      .array(z.object({ path: z.string(), code: z.string(), message: z.string() }))
      .max(20)
      .optional(),
    scope: z.string().optional().describe('Only for insufficient_scope: the missing scope.'),
    conversation_id: z.string().optional().describe('Only for direct_conversation_open.'),
  })
  .meta({ id: 'Problem' });
