// Defects of Resources (spec part 2, RES-*): the problem document's members, the guest session value's shape and
// signature, the webhook's and the recovery endpoint's bodies.
import { signGuestSession } from '../../lib/guest-session.js';
import type { ProxyRequest } from '../proxy.js';
import { editJson, headerOf, mapHeader, pathOf, problemCode, repairGuestSession, withGuestSession } from './helpers.js';
import { lenient, wire, type Defect } from './types.js';

const onProblem = (edit: (b: Record<string, unknown>) => void) => (a: Parameters<typeof editJson>[0]) =>
  a.status >= 400 ? editJson(a, edit) : a;

export const RESOURCES_DEFECTS: readonly Defect[] = [
  ...[404, 413, 422].map((status) =>
    wire(`resources.problem-instance-dropped-on-${status}`, 'RES-PROBLEM-8', `\`instance\` missing from ${status} problems only`, (a) =>
      a.status === status
        ? editJson(a, (b) => {
            delete b.instance;
          })
        : a,
    ),
  ),
  wire('resources.problem-title-wrong-on-415', 'RES-PROBLEM-4', '415 problems titled "Bad Request"', (a) =>
    a.status === 415
      ? editJson(a, (b) => {
          b.title = 'Bad Request';
        })
      : a,
  ),
  wire('resources.problem-type-wrong-on-webhook', 'RES-PROBLEM-3', "the webhook's problems typed about:blank", (a, r) =>
    a.status >= 400 && pathOf(r).startsWith('/webhooks/')
      ? editJson(a, (b) => {
          b.type = 'about:blank';
        })
      : a,
  ),
  wire(
    'resources.problem-status-string-on-internal',
    'RES-PROBLEM-5',
    "the internal routes' problems carry `status` as a string",
    (a, r) =>
      a.status >= 400 && pathOf(r).startsWith('/internal/')
        ? editJson(a, (b) => {
            b.status = String(b.status);
          })
        : a,
  ),
  wire('resources.problem-issues-on-413', 'RES-PROBLEM-9', '413 problems carry an `issues` array', (a) =>
    a.status === 413
      ? editJson(a, (b) => {
          b.issues = [{ path: '', code: 'too_large', message: 'body too large' }];
        })
      : a,
  ),
  wire('resources.problem-media-type-json', 'RES-PROBLEM-1', '404 problem documents labelled application/json', (a) =>
    a.status === 404 ? { ...a, headers: mapHeader(a.headers, 'content-type', () => 'application/json') } : a,
  ),
  wire('resources.problem-error-member-dropped', 'RES-PROBLEM-2', 'the `error` member missing from 403 problems', (a) =>
    a.status === 403
      ? editJson(a, (b) => {
          delete b.error;
        })
      : a,
  ),
  wire(
    'resources.problem-type-unrelated',
    'RES-PROBLEM-3',
    '`type` is about:blank',
    onProblem((b) => {
      b.type = 'about:blank';
    }),
  ),
  wire(
    'resources.problem-title-custom',
    'RES-PROBLEM-4',
    '`title` is a sentence of the server, not the reason phrase',
    onProblem((b) => {
      b.title = 'Something went wrong';
    }),
  ),
  wire(
    'resources.problem-status-string',
    'RES-PROBLEM-5',
    '`status` written as a string',
    onProblem((b) => {
      b.status = String(b.status);
    }),
  ),
  wire(
    'resources.problem-detail-object',
    'RES-PROBLEM-6',
    '`detail`, when present, is an object',
    onProblem((b) => {
      if ('detail' in b) b.detail = { text: b.detail };
    }),
  ),
  wire('resources.problem-instance-dropped', 'RES-PROBLEM-8', '`instance` missing from 401 problems', (a) =>
    a.status === 401
      ? editJson(a, (b) => {
          delete b.instance;
        })
      : a,
  ),
  wire(
    'resources.problem-issues-everywhere',
    'RES-PROBLEM-9',
    'an empty `issues` array on every problem that is not a validation error',
    (a) =>
      a.status >= 400 && problemCode(a) !== 'invalid_request'
        ? editJson(a, (b) => {
            b.issues = [];
          })
        : a,
  ),
  wire('resources.problem-issue-without-code', 'RES-PROBLEM-10', '`issues` items without `code`', (a) =>
    problemCode(a) === 'invalid_request'
      ? editJson(a, (b) => {
          if (Array.isArray(b.issues)) for (const i of b.issues) delete (i as Record<string, unknown>).code;
        })
      : a,
  ),
  wire('resources.problem-scope-everywhere', 'RES-PROBLEM-11', '`scope` on caller_not_allowed problems', (a) =>
    problemCode(a) === 'caller_not_allowed'
      ? editJson(a, (b) => {
          b.scope = 'catalog:read';
        })
      : a,
  ),
  wire('resources.problem-conversation-id-dropped', 'RES-PROBLEM-12', '`conversation_id` missing from direct_conversation_open', (a) =>
    problemCode(a) === 'direct_conversation_open'
      ? editJson(a, (b) => {
          delete b.conversation_id;
        })
      : a,
  ),
  wire('resources.webhook-received-string', 'RES-WEBHOOK-1', 'the webhook answers {"received": "true"}', (a, r) =>
    r.path.startsWith('/webhooks/') && a.status === 200
      ? editJson(a, (b) => {
          b.received = 'true';
        })
      : a,
  ),
  wire('resources.recovery-status-unknown', 'RES-RECOVERY-5', 'a recovery answer with status `done`', (a, r) =>
    r.path.startsWith('/internal/account/recover') && a.status === 200
      ? editJson(a, (b) => {
          if (b.status === 'complete') b.status = 'done';
        })
      : a,
  ),
  lenient(
    'resources.auth.uppercase-guest-id-accepted',
    'RES-GUEST-2',
    'a guest session over an uppercase id is accepted (re-signed over the lowercase id)',
    repairGuestSession((uuid) => uuid !== uuid.toLowerCase()),
  ),
  lenient(
    'resources.auth.lax-guest-signature-accepted',
    'RES-GUEST-3',
    'a guest session with a padded or short signature is accepted (re-signed)',
    repairGuestSession((_uuid, sig) => !/^[\w-]{43}$/.test(sig)),
  ),
  lenient(
    'resources.auth.misshapen-guest-session-accepted',
    'RES-GUEST-1',
    'a guest session of another shape (gs2., missing signature) is accepted (re-signed)',
    (ctx) => ({
      request(req: ProxyRequest): ProxyRequest {
        const v = headerOf(req.headers, 'guest-session');
        const m = /^gs\d\.([0-9a-f-]{36})(?:\.(.*))?$/.exec(v ?? '');
        if (!m || (v!.startsWith('gs1.') && m[2] !== undefined)) return req;
        return withGuestSession(req, signGuestSession(m[1]!, ctx.profile.secrets.guestSessionKey));
      },
    }),
  ),
];
