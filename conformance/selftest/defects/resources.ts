// Defects of part 2, Resources: the problem document's members, the guest session value, the webhook body.
import type { Defect } from '../defect.js';

export const RESOURCE_DEFECTS: readonly Defect[] = [
  { id: 'problem-as-plain-json', clause: 'RES-PROBLEM-1', breaks: 'error bodies are sent as application/json', when: { status: 'error' }, response: { set: { 'Content-Type': 'application/json; charset=utf-8' } } },
  { id: 'problem-without-error', clause: 'RES-PROBLEM-2', breaks: 'problem documents leave out `error`', when: { status: 'error' }, response: { body: { drop: ['error'] } } },
  { id: 'problem-type-about-blank', clause: 'RES-PROBLEM-3', breaks: 'problem `type` is about:blank instead of {docs_url}/api/problems/<error>', when: { status: 'error' }, response: { body: { set: { type: 'about:blank' } } } },
  { id: 'problem-title-generic', clause: 'RES-PROBLEM-4', breaks: 'problem `title` is "Error", not the reason phrase', when: { status: 'error' }, response: { body: { set: { title: 'Error' } } } },
  { id: 'problem-status-as-string', clause: 'RES-PROBLEM-5', breaks: 'problem `status` is a string', when: { status: 401 }, response: { body: { set: { status: '401' } } } },
  { id: 'problem-detail-not-string', clause: 'RES-PROBLEM-6', breaks: 'problem `detail` is an object', when: { status: 'error' }, response: { body: { set: { detail: { reason: 'x' } } } } },
  { id: 'problem-instance-not-request-id', clause: 'RES-PROBLEM-8', breaks: 'problem `instance` is a URL path, not the X-Request-Id', when: { status: 'error' }, response: { body: { set: { instance: '/errors/1' } } } },
  { id: 'problem-issues-outside-validation', clause: 'RES-PROBLEM-9', breaks: '`issues` appears on an authentication failure', when: { error: 'invalid_token' }, response: { body: { set: { issues: [] } } } },
  { id: 'problem-scope-missing', clause: 'RES-PROBLEM-11', breaks: 'insufficient_scope does not name the missing scope', when: { error: 'insufficient_scope' }, response: { body: { drop: ['scope'] } } },
  { id: 'problem-conversation-id-missing', clause: 'RES-PROBLEM-12', breaks: 'direct_conversation_open does not name the conversation', when: { error: 'direct_conversation_open' }, response: { body: { drop: ['conversation_id'] } } },
  { id: 'webhook-received-not-boolean', clause: 'RES-WEBHOOK-1', breaks: 'the webhook answers {"received": "ok"}', when: { path: '^/webhooks/', status: 200 }, response: { body: { set: { received: 'ok' } } } },
  { id: 'guest-session-signature-ignored', clause: 'RES-GUEST-3', breaks: 'a Guest-Session whose MAC does not verify is accepted', repair: 'forged-guest-session' },
];
