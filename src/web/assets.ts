import { readFileSync } from 'node:fs';

// The style sheet and script of the app and the partner portal (the same look; each serves
// them under its own path, so that each one's CSP 'self' holds).

export const ASSETS: Record<string, { type: string; body: Buffer }> = {
  'app.css': { type: 'text/css; charset=utf-8', body: readFileSync(new URL('./assets/app.css', import.meta.url)) },
  'app.js': { type: 'text/javascript; charset=utf-8', body: readFileSync(new URL('./assets/app.js', import.meta.url)) },
};

export const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'x-frame-options': 'DENY',
};
