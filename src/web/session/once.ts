import { randomBytes } from 'node:crypto';

// The one-time token of a rendered form (field `_once`); claimed by its first POST (form-tokens.ts).

export const ONCE_FIELD = '_once';

/** A fresh one-time token for one rendered form. */
export function newFormToken(): string {
  return randomBytes(18).toString('base64url');
}
