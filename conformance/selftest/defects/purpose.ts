// Defects of part 1, What the service does.
import type { Defect } from '../defect.js';

export const PURPOSE_DEFECTS: readonly Defect[] = [
  { id: 'cors-allow-any-origin', clause: 'PUR-PROTO-3', breaks: 'every answer carries Access-Control-Allow-Origin: *', response: { set: { 'Access-Control-Allow-Origin': '*' } } },
  { id: 'banner-leaks-email', clause: 'PUR-BANNER-2', breaks: 'the identity read for agent banners carries the email', when: { path: '^/v1/me/identity$', status: 200 }, response: { body: { set: { email: 'ada@example.com' } } } },
];
