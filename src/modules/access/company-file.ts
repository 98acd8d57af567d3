import type { SmtpSettings, VatReturnPeriod } from '../../db/schema.ts';
import { toValidationIssues, validatorCompiler } from '../../http/validation.ts';
import { isValidBic, isValidIban, normalizeBic, normalizeIban } from '../../shared/iban.ts';
import { hasSeqPlaceholder } from '../../shared/number-pattern.ts';
import type { Sealer } from '../../shared/secrets.ts';
import { isCountryCode, isPlausibleVatId, normalizeVatId } from '../../shared/tax-ids.ts';
import { type DunningPolicy, dunningPolicySchema, parseDunningPolicy } from '../dunning/policy.ts';
import { type CompanyFileProblem, type CompanyLawColumns, companyLawLines, readBooksAndLaw } from './company-file-books.ts';

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
    bic: str(11 + 3),
    bank_name: str(255),
    small_business: { type: 'boolean' },
    chart: { type: 'string', enum: ['SKR03', 'SKR04'] },
    timezone: { type: 'string', minLength: 1, maxLength: 64 },
    invoice_number_pattern: { type: 'string', minLength: 1, maxLength: 64 },
    contract_number_pattern: { type: 'string', minLength: 1, maxLength: 64 },
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
    // Added with issue 10: payee name, company-law details, books settings.
    account_holder: { type: ['string', 'null'], minLength: 1, maxLength: 70 },
    register_court: { type: ['string', 'null'], minLength: 2, maxLength: 100 },
    register_number: { type: ['string', 'null'], minLength: 1, maxLength: 32 },
    managing_directors: {
      type: ['array', 'null'],
      maxItems: 20,
      uniqueItems: true,
      items: { type: 'string', minLength: 1, maxLength: 255 },
    },
    datev_consultant_number: { type: ['integer', 'string', 'null'] },
    datev_client_number: { type: ['integer', 'string', 'null'] },
    fiscal_year_start: { type: 'string', pattern: '^[0-9]{2}-[0-9]{2}$' },
    eu_distance_sales_threshold_exceeded: { type: 'boolean' },
    // Added with issue 14: person-side steps of the revenue share.
    statements_need_review: { type: 'boolean' },
    attributions_need_confirmation: { type: 'boolean' },
    // Added with issue 28: how often the Umsatzsteuer-Voranmeldung is filed.
    vat_return_period: { type: 'string', enum: ['monthly', 'quarterly', 'annual'] },
    vat_return_extension: { type: 'boolean' },
  },
} as const;

const validate = validatorCompiler({ schema: companyFileSchema, httpPart: 'body', method: 'PUT', url: 'company-file' }) as ((data: unknown) => boolean) & {
  errors?: Parameters<typeof toValidationIssues>[0];
};

export type { CompanyFileProblem } from './company-file-books.ts';

/**
 * A refused company file. `message` lists every problem as `key: sentence` lines (English,
 * for the command line); `problems` holds them one by one with a German sentence for the app.
 */
export class CompanyFileError extends Error {
  readonly problems: CompanyFileProblem[];
  constructor(message: string, problems: CompanyFileProblem[] = []) {
    super(message);
    this.problems = problems;
  }
}

function invalid(problems: CompanyFileProblem[]): CompanyFileError {
  return new CompanyFileError(`the company file is not valid:\n  ${problems.map((p) => `${p.key}: ${p.en}`).join('\n  ')}`, problems);
}

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
  contract_number_pattern?: string;
  payment_terms_days?: number;
  smtp?: string | null;
  dunning?: string | null;
  account_holder?: string | null;
  register_court?: string | null;
  register_number?: string | null;
  managing_directors?: string[];
  datev_consultant_number?: number | null;
  datev_client_number?: number | null;
  fiscal_year_start?: string;
  eu_distance_threshold_exceeded?: boolean;
  statements_need_review?: boolean;
  attributions_need_confirmation?: boolean;
  vat_return_period?: VatReturnPeriod;
  vat_return_extension?: boolean;
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
  const problems: CompanyFileProblem[] = [];
  if (!validate(data)) {
    for (const issue of toValidationIssues(validate.errors ?? [], 'file')) {
      const key = issue.loc.slice(1).join('.') || '(file)';
      problems.push({ key, en: `${issue.type} (${issue.msg})`, de: schemaProblemDe(key, issue.type) });
    }
    throw invalid(problems);
  }
  const file = data as Record<string, unknown> & { smtp?: Record<string, unknown> | null };
  if (requireName && !file.name) problems.push({ key: 'name', en: 'missing (the company needs a name)', de: 'Die Firma braucht einen Namen.' });
  const columns = { ...file } as Record<string, unknown>;
  if (typeof file.country_code === 'string' && !isCountryCode(file.country_code))
    problems.push({ key: 'country_code', en: 'not an ISO 3166-1 alpha-2 code', de: 'Kein Ländercode nach ISO 3166-1 (zwei Buchstaben, zum Beispiel DE).' });
  if (typeof file.vat_id === 'string') {
    columns.vat_id = normalizeVatId(file.vat_id);
    if (!isPlausibleVatId(columns.vat_id as string, typeof file.country_code === 'string' ? file.country_code : 'DE'))
      problems.push({
        key: 'vat_id',
        en: 'not a VAT ID of its country format (or wrong check digit)',
        de: 'Keine gültige USt-IdNr. (das Format des Landes oder die Prüfziffer stimmt nicht).',
      });
  }
  if (typeof file.iban === 'string') {
    columns.iban = normalizeIban(file.iban);
    if (!isValidIban(columns.iban as string))
      problems.push({ key: 'iban', en: 'not a valid IBAN (length or check digits)', de: 'Keine gültige IBAN (Länge oder Prüfziffern stimmen nicht).' });
  }
  if (typeof file.bic === 'string') {
    columns.bic = normalizeBic(file.bic);
    if (!isValidBic(columns.bic as string))
      problems.push({
        key: 'bic',
        en: 'not a valid BIC (8 or 11 characters: bank, country, location, branch)',
        de: 'Keine gültige BIC (8 oder 11 Zeichen: Bank, Land, Ort, Filiale).',
      });
  }
  if (typeof file.timezone === 'string' && !isTimeZone(file.timezone))
    problems.push({ key: 'timezone', en: 'not an IANA time zone such as Europe/Berlin', de: 'Keine Zeitzone wie Europe/Berlin.' });
  if (typeof file.invoice_number_pattern === 'string' && !hasSeqPlaceholder(file.invoice_number_pattern)) {
    problems.push({
      key: 'invoice_number_pattern',
      en: 'needs a {seq} or {seq:N} placeholder, for example RE-{yyyy}-{seq:5}',
      de: 'Das Muster braucht den Platzhalter {seq} oder {seq:N} für die laufende Nummer, zum Beispiel RE-{yyyy}-{seq:5}.',
    });
  }
  if (typeof file.contract_number_pattern === 'string' && !hasSeqPlaceholder(file.contract_number_pattern)) {
    problems.push({
      key: 'contract_number_pattern',
      en: 'needs a {seq} or {seq:N} placeholder, for example V-{seq:5}',
      de: 'Das Muster braucht den Platzhalter {seq} oder {seq:N} für die laufende Nummer, zum Beispiel V-{seq:5}.',
    });
  }
  readBooksAndLaw(file, columns, problems);
  if (file.dunning !== undefined) {
    const dunning = parseDunningPolicy(file.dunning as Partial<DunningPolicy> | null);
    problems.push(...dunning.problems.map((line) => dunningProblem(line, file.dunning as Partial<DunningPolicy>)));
    columns.dunning = dunning.policy === null ? null : JSON.stringify(dunning.policy);
  }
  if (problems.length > 0) throw invalid(problems);
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

/**
 * Refuses a company whose company-law details, as they would be after the change, do not
 * fit its legal form (a GmbH without register court or managing directors, …).
 */
export function assertCompanyLaw(company: CompanyLawColumns): void {
  const problems = companyLawLines(company);
  if (problems.length > 0) throw invalid(problems);
}

/** The company-law columns of `columns` over those of `current` (null for a new company). */
export function companyLawAfter(columns: CompanyColumns, current: CompanyLawColumns | null): CompanyLawColumns {
  return {
    legal_form: 'legal_form' in columns ? (columns.legal_form ?? null) : (current?.legal_form ?? null),
    register_court: 'register_court' in columns ? (columns.register_court ?? null) : (current?.register_court ?? null),
    register_number: 'register_number' in columns ? (columns.register_number ?? null) : (current?.register_number ?? null),
    managing_directors: columns.managing_directors ?? current?.managing_directors ?? [],
  };
}

/** The German sentence of a problem parseDunningPolicy found (its English line is kept for the command line). */
function dunningProblem(line: string, value: Partial<DunningPolicy>): CompanyFileProblem {
  const [key = 'dunning', ...rest] = line.split(': ');
  const en = rest.join(': ');
  const levels = value.levels ?? 2;
  const de = /^needs \d+ amounts/.test(en)
    ? `Für ${levels} Mahnstufen braucht es ${levels + 1} Gebühren (Stufe 0 bis ${levels}), angegeben sind ${value.fees?.length ?? 0}.`
    : /level 0\) carries no fee/.test(en)
      ? 'Die Zahlungserinnerung (Stufe 0) kostet keine Gebühr; der erste Betrag muss 0,00 sein.'
      : en;
  return { key, en, de };
}

/** German sentences for what the schema refuses, by key where the key tells more. */
const SCHEMA_DE: Record<string, string> = {
  name: 'Bitte den Namen der Firma angeben (höchstens 255 Zeichen).',
  country_code: 'Bitte den Ländercode mit zwei Großbuchstaben angeben, zum Beispiel DE.',
  email: 'Das ist keine gültige E-Mail-Adresse.',
  payment_terms_days: 'Bitte eine ganze Zahl von 0 bis 365 angeben.',
  chart: 'Bitte SKR03 oder SKR04 wählen.',
  vat_return_period: 'Bitte monatlich, vierteljährlich oder jährlich (von Voranmeldungen befreit) wählen.',
  fiscal_year_start: 'Bitte als MM-TT angeben, zum Beispiel 01-01.',
  invoice_number_pattern: 'Bitte ein Muster mit 1 bis 64 Zeichen angeben.',
  contract_number_pattern: 'Bitte ein Muster mit 1 bis 64 Zeichen angeben.',
  managing_directors: 'Jeder Name darf nur einmal vorkommen (höchstens 20 Namen mit je bis zu 255 Zeichen).',
  account_holder: 'Der Kontoinhaber hat 1 bis 70 Zeichen (so viel nimmt eine SEPA-Überweisung auf).',
  register_court: 'Bitte das Registergericht mit 2 bis 100 Zeichen angeben.',
  register_number: 'Die Registernummer hat höchstens 32 Zeichen.',
  datev_consultant_number: 'Die Beraternummer besteht nur aus Ziffern.',
  datev_client_number: 'Die Mandantennummer besteht nur aus Ziffern.',
  'smtp.host': 'Bitte den SMTP-Server angeben.',
  'smtp.port': 'Bitte einen Port von 1 bis 65535 angeben.',
  'smtp.from': 'Bitte die Absenderadresse angeben.',
  'dunning.reminder_days': 'Bitte eine ganze Zahl von 1 bis 90 angeben.',
  'dunning.interval_days': 'Bitte eine ganze Zahl von 1 bis 90 angeben.',
  'dunning.deadline_days': 'Bitte eine ganze Zahl von 1 bis 60 angeben.',
  'dunning.levels': 'Bitte 2 oder 3 Mahnstufen wählen.',
  'dunning.fees': 'Bitte für jede Mahnstufe eine Gebühr angeben.',
};

function schemaProblemDe(key: string, type: string): string {
  if (/^dunning\.fees\.\d+$/.test(key)) return 'Bitte einen Betrag wie 2,50 angeben (höchstens 99,99 €).';
  if (type === 'extra_forbidden') return 'Diese Angabe gibt es nicht.';
  const known = SCHEMA_DE[key];
  if (known) return known;
  const maxLength = (companyFileSchema.properties as Record<string, { maxLength?: number }>)[key]?.maxLength;
  switch (type) {
    case 'missing':
    case 'too_short':
      return 'Bitte ausfüllen.';
    case 'too_long':
      return maxLength ? `Der Text ist zu lang (höchstens ${maxLength} Zeichen).` : 'Der Text ist zu lang.';
    case 'pattern':
      return 'Bitte eine Zeile Text ohne Steuerzeichen angeben.';
    case 'format':
      return 'Das Format stimmt nicht.';
    default:
      return 'Der Wert hat nicht die erwartete Form.';
  }
}
