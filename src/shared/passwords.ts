import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

// Passwords use scrypt (memory-hard, in node:crypto, no native addon): N=2^15, r=8, p=1
// needs 32 MiB per hash. Only logins pay this, never API requests.
const N = 2 ** 15;
const R = 8;
const P = 1;
const KEYLEN = 32;
const MAXMEM = 64 * 1024 * 1024;

function derive(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, KEYLEN, { N: n, r, p, maxmem: MAXMEM }, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, N, R, P);
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await derive(password, Buffer.from(salt, 'base64url'), Number(n), Number(r), Number(p));
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** The shortest password a person or a partner may choose (in characters). */
export const MIN_PASSWORD_LENGTH = 12;
/** Longer input is never hashed whole (scrypt's work grows with it). */
export const MAX_PASSWORD_LENGTH = 1024;

/** Whether a new password has an allowed length: MIN_PASSWORD_LENGTH characters to MAX_PASSWORD_LENGTH. */
export function passwordLengthAllowed(password: string): boolean {
  return [...password].length >= MIN_PASSWORD_LENGTH && password.length <= MAX_PASSWORD_LENGTH;
}

let dummyHash: Promise<string> | undefined;

/**
 * A sign-in's check: the password against the stored hash, or against a dummy hash when
 * there is none (an unknown account), so that the answer's time tells nothing.
 */
export async function verifySignInPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  dummyHash ??= hashPassword('kontor-dummy-password');
  const good = await verifyPassword(password.slice(0, MAX_PASSWORD_LENGTH), stored ?? (await dummyHash));
  return good && stored !== null && stored !== undefined;
}
