import { fullFormats } from 'ajv-formats/dist/formats.js';

// One e-mail syntax check for the whole of Kontor: the API's bodies (`format: 'email'`,
// ajv-formats' full mode in http/validation.ts) and the people invited in the app and with
// `kontor admin user invite` accept the same addresses: a dot-atom local part (no quotes,
// spaces, brackets or angle brackets) and a domain of letters, digits and hyphens with a dot.

const EMAIL_FORMAT = fullFormats.email as RegExp;

/** At most 254 characters (RFC 5321's path limit less the brackets), as the API's schemas allow. */
export const MAX_EMAIL_LENGTH = 254;

export function isEmailAddress(text: string): boolean {
  return text.length <= MAX_EMAIL_LENGTH && EMAIL_FORMAT.test(text);
}
