import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

// Standard Webhooks secrets: `whsec_` + base64 of the key. 32 random bytes (the scheme
// asks for 24–64); the key signs with HMAC-SHA256.

export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** A signer per secret, kept while the process runs (opening the seal costs an AES-GCM pass). */
export function signerCache(open: (sealed: string) => string): (sealed: string) => Webhook {
  const signers = new Map<string, Webhook>();
  return (sealed) => {
    let signer = signers.get(sealed);
    if (!signer) {
      signer = new Webhook(open(sealed));
      if (signers.size >= 10_000) signers.clear();
      signers.set(sealed, signer);
    }
    return signer;
  };
}
