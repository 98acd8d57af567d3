import type { SmtpSettings } from '../../db/schema.ts';
import { toValidationIssues, validatorCompiler } from '../../http/validation.ts';
import { isValidIban, normalizeIban } from '../../shared/iban.ts';
import type { Sealer } from '../../shared/secrets.ts';
import { isCountryCode, isPlausibleVatId, normalizeVatId } from '../../shared/tax-ids.ts';
import { type DunningPolicy, dunningPolicySchema, parseDunningPolicy } from '../dunning/policy.ts';

// The company file of `admin bootstrap` and `admin company update` (design §2): the
// company's issuing details. Unknown keys are refused.

const str = (max: number) => ({ type: ['string', 'null'], maxLength: max }) as const;

export const companyFileSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 255 },
    legal_form: str(64),
    street: str(255),
    house_number: str(32),
    zip: str(16),
    city: str(255),
    country_code: { type: 'string', pattern: '^[A-Z]{2}$' },
    vat_id: str(20),
    tax_number: str(32),
    email: { type: ['string', 'null'], format: 'email', maxLength: 254 },
    phone: str(64),
    contact_name: str(255),
    iban: str(42),
    bic: { type: ['string', 'null'], pattern: '^[A-Z0-9]{8}([A-Z0-9]{3})?$' },
    bank_name: str(255),
    small_business: { type: 'boolean' },
    chart: { type: 'string', enum: ['SKR03', 'SKR04'] },
    timezone: { type: 'string', minLength: 1, maxLength: 64 },
    invoice_number_pattern: { type: 'string', minLength: 1, maxLength: 64 },
    payment_terms_days: { type: 'integer', minimum: 0, maximum: 365 },
    smtp: {
      type: ['object', 'null'],
      additionalProperties: false,
      required: ['host', 'from'],
      properties: {
        host: { type: 'string', minLength: 1, maxLength: 255 },
        port: { type: 'integer', minimum: 1, maximum: 65535 },
        secure: { type: 'boolean' },
        user: str(255),
        password: str(255),
        from: { type: 'string', minLength: 3, maxLength: 320 },
      },
    },
    dunning: dunningPolicySchema,
  },
} as const;

const validate = validatorCompiler({ schema: companyFileSchema, httpPart: 'body', method: 'PUT', url: 'company-file' }) as ((data: unknown) => boolean) & {
  errors?: Parameters<typeof toValidationIssues>[0];
};

export class CompanyFileError extends Error {}

export type CompanyColumns = {
  name?: string;
  legal_form?: string | null;
  street?: string | null;
  house_number?: string | null;
  zip?: string | null;
  city?: string | null;
  country_code?: string;
  vat_id?: string | null;
  tax_number?: string | null;
  email?: string | null;
  phone?: string | null;
  contact_name?: string | null;
  iban?: string | null;
  bic?: string | null;
  bank_name?: string | null;
  small_business?: boolean;
  chart?: 'SKR03' | 'SKR04';
  timezone?: string;
  invoice_number_pattern?: string;
  payment_terms_days?: number;
  smtp?: string | null;
  dunning?: string | null;
};

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** Parses and checks a company file; returns the columns it sets. Throws CompanyFileError with every problem. */
export function parseCompanyFile(text: string, sealer: Sealer, { requireName }: { requireName: boolean }): CompanyColumns {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new CompanyFileError(`the company file is not valid JSON: ${(error as Error).message}`);
  }
  const problems: string[] = [];
  if (!validate(data)) {
    for (const issue of toValidationIssues(validate.errors ?? [], 'file'))
      problems.push(`${issue.loc.slice(1).join('.') || '(file)'}: ${issue.type} (${issue.msg})`);
    throw new CompanyFileError(`the company file is not valid:\n  ${problems.join('\n  ')}`);
  }
  const file = data as Record<string, unknown> & { smtp?: Record<string, unknown> | null };
  if (requireName && !file.name) problems.push('name: missing (the company needs a name)');
  const columns = { ...file } as Record<string, unknown>;
  if (typeof file.country_code === 'string' && !isCountryCode(file.country_code)) problems.push('country_code: not an ISO 3166-1 alpha-2 code');
  if (typeof file.vat_id === 'string') {
    columns.vat_id = normalizeVatId(file.vat_id);
    if (!isPlausibleVatId(columns.vat_id as string)) problems.push('vat_id: not a VAT ID of its country format (or wrong check digit)');
  }
  if (typeof file.iban === 'string') {
    columns.iban = normalizeIban(file.iban);
    if (!isValidIban(columns.iban as string)) problems.push('iban: not a valid IBAN (length or check digits)');
  }
  if (typeof file.timezone === 'string' && !isTimeZone(file.timezone)) problems.push('timezone: not an IANA time zone such as Europe/Berlin');
  if (typeof file.invoice_number_pattern === 'string' && !/\{seq(:\d)?\}/.test(file.invoice_number_pattern)) {
    problems.push('invoice_number_pattern: needs a {seq} or {seq:N} placeholder, for example RE-{yyyy}-{seq:5}');
  }
  if (file.dunning !== undefined) {
    const dunning = parseDunningPolicy(file.dunning as Partial<DunningPolicy> | null);
    problems.push(...dunning.problems);
    columns.dunning = dunning.policy === null ? null : JSON.stringify(dunning.policy);
  }
  if (problems.length > 0) throw new CompanyFileError(`the company file is not valid:\n  ${problems.join('\n  ')}`);
  if (file.smtp !== undefined) {
    const smtp = file.smtp;
    columns.smtp =
      smtp === null
        ? null
        : JSON.stringify({
            host: smtp.host as string,
            port: (smtp.port as number | undefined) ?? (smtp.secure ? 465 : 587),
            secure: (smtp.secure as boolean | undefined) ?? false,
            user: (smtp.user as string | null | undefined) ?? null,
            password_sealed: typeof smtp.password === 'string' ? sealer.seal(smtp.password) : null,
            from: smtp.from as string,
          } satisfies SmtpSettings);
  }
  return columns as CompanyColumns;
}
