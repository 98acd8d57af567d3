import assert from 'node:assert/strict';
import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { createSealer, SealedValueError } from '../../src/shared/secrets.ts';

// Sealed values (shared/secrets.ts): AES-256-GCM, v2 keyed by HKDF-SHA256 of the instance
// secret; v1 values (key = SHA-256 of the secret) written before still open.

/** A value sealed the way Kontor did before v2: AES-256-GCM under SHA-256(secret). */
function sealV1(secret: string, plain: string): string {
  const key = createHash('sha256').update(secret).digest();
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
}

/** The base64url part `index` of a sealed value with its first byte flipped. */
function flipped(sealed: string, index: number): string {
  const parts = sealed.split('.');
  const bytes = Buffer.from(parts[index]!, 'base64url');
  bytes[0]! ^= 0x01;
  parts[index] = bytes.toString('base64url');
  return parts.join('.');
}

describe('sealed values', () => {
  const sealer = createSealer('instance-secret');

  test('new seals are v2 and open again (also empty and non-ASCII text)', () => {
    for (const plain of ['smtp-passwort', '', 'Passwört €']) {
      const sealed = sealer.seal(plain);
      assert.match(sealed, /^v2\.[\w-]{16}\.[\w-]{22}\.[\w-]*$/);
      assert.equal(sealer.open(sealed), plain);
    }
    assert.notEqual(sealer.seal('x'), sealer.seal('x'), 'a fresh IV each time');
  });

  test('the v2 key is not SHA-256(secret): a v2 value relabelled v1 does not open', () => {
    const relabelled = sealer.seal('geheim').replace(/^v2\./, 'v1.');
    assert.throws(() => sealer.open(relabelled), SealedValueError);
  });

  test('a v1 value sealed by the old scheme still opens', () => {
    const old = sealV1('instance-secret', 'altes SMTP-Passwort');
    assert.match(old, /^v1\./);
    assert.equal(sealer.open(old), 'altes SMTP-Passwort');
  });

  test('a value sealed under another secret is refused, v1 and v2', () => {
    const other = createSealer('another-secret');
    for (const sealed of [other.seal('geheim'), sealV1('another-secret', 'geheim')]) {
      assert.throws(() => sealer.open(sealed), { name: 'SealedValueError', message: /sealed under another instance secret, or altered/ });
    }
  });

  test('an altered iv, tag or body is refused, v1 and v2', () => {
    for (const sealed of [sealer.seal('geheim'), sealV1('instance-secret', 'geheim')]) {
      for (const part of [1, 2, 3]) {
        assert.throws(() => sealer.open(flipped(sealed, part)), SealedValueError, `part ${part} of ${sealed.slice(0, 2)}`);
      }
    }
  });

  test('an unknown version, a short tag or a missing part is refused as an unknown format', () => {
    const [, iv, tag, body] = sealer.seal('geheim').split('.');
    for (const sealed of [
      `v3.${iv}.${tag}.${body}`,
      `__proto__.${iv}.${tag}.${body}`,
      `v2.${iv}.${tag!.slice(0, 8)}.${body}`,
      `v2.${iv}.${tag}`,
      `v2.${iv}.${tag}.${body}.x`,
      'geheim',
    ]) {
      assert.throws(() => sealer.open(sealed), { name: 'SealedValueError', message: 'sealed value has an unknown format' }, sealed);
    }
  });
});
