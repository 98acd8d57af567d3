import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

// Secrets at rest (SMTP passwords, webhook secrets, later payout accounts) are sealed with
// AES-256-GCM under the instance secret (config.ts: KONTOR_SECRET_KEY or <data>/secret.key).
// A sealed value is `version.iv.tag.body` (base64url).
//
// v2 (written since issue 10): the key is HKDF-SHA256 of the secret with a fixed salt and
// an info naming the purpose, so the same secret can key other purposes later without
// their keys being related. v1 (before): the key was SHA-256(secret); such values still
// open, and are written anew as v2 only when their owner saves them again.
export type Sealer = { seal(plain: string): string; open(sealed: string): string };

const HKDF_SALT = 'kontor instance secret';
const SEALED_VALUES_INFO = 'kontor sealed values v2';

/** The v2 key of sealed values: HKDF-SHA256(secret, salt, info), 32 bytes. */
function sealingKeyV2(secret: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, HKDF_SALT, SEALED_VALUES_INFO, 32));
}

export class SealedValueError extends Error {
  override name = 'SealedValueError';
}

export function createSealer(secret: string): Sealer {
  const v2 = sealingKeyV2(secret);
  const keys = new Map([
    ['v2', v2],
    ['v1', createHash('sha256').update(secret).digest()],
  ]);
  return {
    seal(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', v2, iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return ['v2', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
    },
    open(sealed) {
      const parts = sealed.split('.');
      const [version, iv, tag, body] = parts;
      const key = version === undefined ? undefined : keys.get(version);
      if (!key || parts.length !== 4 || !iv || !tag || body === undefined) throw new SealedValueError('sealed value has an unknown format');
      const ivBytes = Buffer.from(iv, 'base64url');
      const tagBytes = Buffer.from(tag, 'base64url');
      if (ivBytes.length !== 12 || tagBytes.length !== 16) throw new SealedValueError('sealed value has an unknown format');
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, ivBytes, { authTagLength: 16 });
        decipher.setAuthTag(tagBytes);
        return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
      } catch {
        // GCM's check failed: another instance secret, or the value was altered.
        throw new SealedValueError('sealed value cannot be opened: it was sealed under another instance secret, or altered');
      }
    },
  };
}
