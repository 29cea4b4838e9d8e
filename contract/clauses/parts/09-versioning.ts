// The clause catalogue, spec part 9: Versioning (contract/clauses/catalogue.ts assembles the parts). Data only.
import type { Clause } from '../catalogue.js';
import { VER } from '../headings.js';

export const VERSIONING: readonly Clause[] = [
  { id: 'VER-PREFIX-1', part: 'versioning', section: VER, severity: 'MUST', text: 'Customer-facing operations live under the /v1 prefix.' },
  {
    id: 'VER-PREFIX-2',
    part: 'versioning',
    section: VER,
    severity: 'MUST',
    text: 'Assistant conversation routes and the description documents live outside /v1 (/assistant/conversations..., /openapi.json, /assistant/openapi.json).',
  },
  {
    id: 'VER-ROUTES-1',
    part: 'versioning',
    section: VER,
    severity: 'MUST',
    text: 'Route names are declared only in the contract.',
    notTestable:
      'where route names are declared is a property of the source, not of HTTP behaviour; the served routes are checked by PUR-RULE-1 and VER-ROUTES-2',
  },
  {
    id: 'VER-ROUTES-2',
    part: 'versioning',
    section: VER,
    severity: 'MUST',
    text: 'Earlier website-prefixed paths for the checkout reads no longer exist.',
  },
  {
    id: 'VER-ROUTES-3',
    part: 'versioning',
    section: VER,
    severity: 'MUST',
    text: 'Nothing aliases old paths: no old path answers, redirects to or proxies a current route.',
  },
  {
    id: 'VER-DOCS-1',
    part: 'versioning',
    section: VER,
    severity: 'MUST',
    text: 'Two description documents exist: the general one (/openapi.json) and the assistant one (/assistant/openapi.json).',
  },
];
