// The rule book: every rule of the spec judged on more than one exchange, one named condition each (rule.ts), one file per
// spec section. `RULE_TEXT` names the text each rule owns: outside its owner it may appear only where the suite sends the
// header rather than judges it (test/unit/conformance/rule-text.test.ts scans for it, this file aside; docs/rules.md
// describes the book).
import { PROBLEM_TITLE } from './02-resources.js';
import { CALLER_GUARD, CONDITIONAL_GET, OWN_CREDENTIAL_REQUIRED } from './04-endpoints.js';
import { CREDENTIAL_REFUSED, NONCE_ON_EVERY_RESPONSE } from './05-authentication.js';
import { NO_CHALLENGE_ON_DOMAIN_ERROR, NO_NONCE_ON_DOMAIN_ERROR } from './07-errors.js';
import type { Rule } from './rule.js';

export { PROBLEM_TITLE, expectTitle, acceptedTitles } from './02-resources.js';
export {
  CALLER_GUARD,
  CONDITIONAL_GET,
  OWN_CREDENTIAL_REQUIRED,
  LIST_CLAUSE,
  OWN_CREDENTIAL_CLAUSE,
  guardRefused,
  shownCallers,
  type GuardRequest,
} from './04-endpoints.js';
export {
  CREDENTIAL_REFUSALS,
  CREDENTIAL_REFUSED,
  NONCE_ON_EVERY_RESPONSE,
  describeRefusal,
  expectDpopNonce,
  nonceOf,
  DPOP_NONCE_HEADER,
  type ErrorsByStatus,
} from './05-authentication.js';
export {
  NO_CHALLENGE_ON_DOMAIN_ERROR,
  NO_NONCE_ON_DOMAIN_ERROR,
  expectDomainErrorHeaders,
  isDomainError,
  nonceAllowed,
} from './07-errors.js';
export { enforce, failureOf, type Rule, type RuleScope, type Verdict, type Enforcement } from './rule.js';

/** Every rule of the book, by file. */
export const RULES: readonly { file: string; rule: Rule<any, any> }[] = [
  { file: 'conformance/rules/02-resources.ts', rule: PROBLEM_TITLE },
  { file: 'conformance/rules/04-endpoints.ts', rule: CALLER_GUARD },
  { file: 'conformance/rules/04-endpoints.ts', rule: OWN_CREDENTIAL_REQUIRED },
  { file: 'conformance/rules/04-endpoints.ts', rule: CONDITIONAL_GET },
  { file: 'conformance/rules/05-authentication.ts', rule: NONCE_ON_EVERY_RESPONSE },
  { file: 'conformance/rules/05-authentication.ts', rule: CREDENTIAL_REFUSED },
  { file: 'conformance/rules/07-errors.ts', rule: NO_CHALLENGE_ON_DOMAIN_ERROR },
  { file: 'conformance/rules/07-errors.ts', rule: NO_NONCE_ON_DOMAIN_ERROR },
];

/**
 * Text a rule owns (a header it judges, the data it judges by, the construction of a lookup it shares), with the one file
 * that may hold it and the files that may hold it only to send a request (a client keeps the nonce for its next proof).
 */
export const RULE_TEXT: readonly { text: RegExp; what: string; owner: string; senders: readonly string[] }[] = [
  {
    text: /['"`]dpop-nonce['"`]/,
    what: 'the DPoP-Nonce header read by its name (AUTH-ORDER-4: nonceOf, expectDpopNonce)',
    owner: 'conformance/rules/05-authentication.ts',
    senders: [
      // Clients that keep the nonce of an answer for their next proof, and retry once on use_dpop_nonce.
      'conformance/checks/_shared/assistant.ts',
      'conformance/checks/_shared/read-event-stream.ts',
      'conformance/checks/05-authentication.dpop-negatives.check.ts',
      'conformance/explore/agent-callers.ts',
      'conformance/explore/concurrency.ts',
    ],
  },
  {
    text: /REGISTERED_REASON_PHRASES/,
    what: "the reason phrases a problem's title is judged by (RES-PROBLEM-4: expectTitle)",
    owner: 'conformance/rules/02-resources.ts',
    senders: [],
  },
  {
    text: /['"`]\(?\[\^\/\]\+\)?['"`]/,
    what: 'a path template turned into a regular expression (contract/requests.ts templatePattern, matchesTemplate, routeOf)',
    owner: 'contract/requests.ts',
    senders: [],
  },
  {
    text: /\/\^dpop|=== 'dpop'|isDpopCaller/,
    what: 'whether a request is a DPoP request (contract/requests.ts isDpopRequest, mayBeDpopRequest)',
    owner: 'contract/requests.ts',
    senders: [],
  },
];
