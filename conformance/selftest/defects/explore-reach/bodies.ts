// Explore-reach defects, family "body shapes": a request body a conforming server refuses with 400 invalid_request (or
// must not crash on), or must accept, mishandled for one input shape on one route. Written from the spec and the contract
// alone (blind).
import { LIMITS } from '../../../../contract/limits.js';
import { isJsonMediaType, type ProxyRequest } from '../../proxy.js';
import { editJsonBody, headerOf, notAStream, pathOf, problemAnswer } from '../helpers.js';
import { lenient, type Defect } from '../types.js';
import { isCode, isOperation, statefulWire } from '../blind/shared.js';

const RECOVERY_PATH = '/internal/account/recover';
/** The members of the recovery request (spec, Resources > Account recovery request). */
const RECOVERY_MEMBERS = ['subject', 'operationId', 'purpose'] as const;

/** The recovery body with members named like a known member but for case renamed to it (a case-insensitive binder). */
const foldMemberCase = (body: string): string =>
  editJsonBody(body, (v) => {
    const out: Record<string, unknown> = {};
    let renamed = false;
    for (const [k, value] of Object.entries(v)) {
      const known = RECOVERY_MEMBERS.find((m) => m !== k && m.toLowerCase() === k.toLowerCase());
      if (known && !(known in v)) {
        out[known] = value;
        renamed = true;
      } else out[k] = value;
    }
    if (!renamed) return false;
    // The members in their order, renamed in place.
    for (const k of Object.keys(v)) delete v[k];
    Object.assign(v, out);
  });

export const REACH_BODIES_DEFECTS: readonly Defect[] = [
  // Errors: "| validation failure | 400 | `invalid_request` (with `issues`, max 20) |" and "Unexpected failures: 500
  // `internal_error`". Broken on createCheckoutPreview: the handler reads a member of the body before validating it, so a
  // top-level JSON `null` throws (500 internal_error) where a conforming server answers 400 invalid_request.
  statefulWire(
    'reach.bodies.preview-null-body-crashes',
    'ERR-TABLE-11',
    'createCheckoutPreview answers a top-level JSON null body with 500 internal_error instead of 400 invalid_request',
    (ctx) => {
      const nullBodies = new WeakSet<ProxyRequest>();
      return {
        buffer: notAStream,
        requestBody(r, body) {
          if (isOperation(r, 'createCheckoutPreview') && body.trim() === 'null') nullBodies.add(r);
          return body;
        },
        // Only where the server behind reached input validation: a refused token or caller is answered before the handler.
        response: (a, r) =>
          nullBodies.has(r) && isCode(a, 'invalid_request') ? problemAnswer(ctx, a, 500, 'internal_error', 'Internal Server Error') : a,
      };
    },
  ),
  // Account recovery request: "No other fields are accepted." Broken: the body is bound case-insensitively (a JSON binder
  // configured to ignore the case of property names), so `Subject`, `OPERATIONID` or `Purpose` are taken as the known
  // members instead of being refused as unknown ones.
  lenient(
    'reach.bodies.recovery-member-case-folded',
    'RES-RECOVERY-4',
    'the recovery endpoint binds member names case-insensitively (`Subject` is taken as `subject`)',
    () => ({
      requestBody: (r, body) => (r.method === 'POST' && pathOf(r) === RECOVERY_PATH ? foldMemberCase(body) : body),
    }),
  ),
  // Limits: "| request body cap | 256 KiB | every request |". Broken: the JSON decoder compares the declared length with
  // `>=`, so a JSON body of exactly 256 KiB (the cap itself, which must be accepted) is refused 413 payload_too_large
  // before anything else runs.
  statefulWire(
    'reach.bodies.exact-cap-refused',
    'LIM-BODY-1',
    'a JSON body of exactly 256 KiB (262144 bytes) is refused 413 payload_too_large',
    (ctx) => {
      const refused = new WeakSet<ProxyRequest>();
      return {
        buffer: notAStream,
        request(r) {
          const length = headerOf(r.headers, 'content-length');
          if (length !== String(LIMITS.requestBodyBytes) || !isJsonMediaType(headerOf(r.headers, 'content-type'))) return r;
          // Refused before the body is read: nothing of the request reaches the service (a harmless read goes instead).
          const sent = { ...r, method: 'GET', path: '/health' };
          refused.add(r);
          refused.add(sent);
          return sent;
        },
        requestBody: (r, body) => (refused.has(r) ? '' : body),
        response: (a, r) => (refused.has(r) ? problemAnswer(ctx, a, 413, 'payload_too_large', 'Content Too Large') : a),
      };
    },
  ),
];
