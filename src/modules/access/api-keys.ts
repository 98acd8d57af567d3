import { createHash } from 'node:crypto';
import { randomBase62 } from '../../shared/ids.ts';

// API keys: 'kt_' + 40 base62 characters. Only the SHA-256 hash and the first 8
// characters are stored; the key itself is shown once at creation.
export const API_KEY_PATTERN = /^kt_[0-9A-Za-z]{40}$/;

export const SCOPES = [
  'partner:customers:write',
  'partner:invoices:write',
  'partner:invoices:read',
  'partner:commissions:write',
  'partner:commissions:read',
] as const;
export type Scope = (typeof SCOPES)[number];

export function generateApiKey(): string {
  return `kt_${randomBase62(40)}`;
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
