// Defects of parts 6 and 8, Events and Limits.
import type { Defect } from '../defect.js';

export const EVENT_AND_LIMIT_DEFECTS: readonly Defect[] = [
  { id: 'webhook-missing-signature-401', clause: 'EVT-WEBHOOK-4', breaks: 'a delivery without signature is 401', when: { error: 'missing_signature' }, response: { status: 401, body: { set: { status: 401, title: 'Unauthorized' } } } },
  { id: 'webhook-bad-signature-401', clause: 'EVT-WEBHOOK-5', breaks: 'a delivery whose signature fails is 401', when: { error: 'invalid_signature' }, response: { status: 401, body: { set: { status: 401, title: 'Unauthorized' } } } },
  { id: 'body-cap-400', clause: 'LIM-BODY-1', breaks: 'an oversized body is answered 400 without a problem type of its own', when: { error: 'payload_too_large' }, response: { set: { 'Content-Type': 'text/plain' } } },
  { id: 'rate-limit-no-retry-after', clause: 'LIM-RATE-4', breaks: '429 without Retry-After', when: { status: 429 }, response: { drop: ['Retry-After'] } },
];
