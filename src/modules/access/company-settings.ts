import type { Database } from '../../db/connection.ts';
import type { SmtpSettings, VatReturnPeriod } from '../../db/schema.ts';
import { formatNumberPattern } from '../../shared/number-pattern.ts';
import type { DunningPolicy } from '../dunning/policy.ts';
import { invoiceRangeKey } from '../invoicing/numbering.ts';
import { AdminError } from './admin-error.ts';

// The company's settings as the company file has them (design §2), for the app's settings
// pages and `kontor admin company show`. Secrets stay out: of the mailbox only whether a
// password is stored.

export type CompanySettings = {
  name: string;
  legal_form: string | null;
  street: string | null;
  house_number: string | null;
  zip: string | null;
  city: string | null;
  country_code: string;
  vat_id: string | null;
  tax_number: string | null;
  email: string | null;
  phone: string | null;
  contact_name: string | null;
  iban: string | null;
  bic: string | null;
  bank_name: string | null;
  account_holder: string | null;
  small_business: boolean;
  payment_terms_days: number;
  timezone: string;
  invoice_number_pattern: string;
  contract_number_pattern: string;
  register_court: string | null;
  register_number: string | null;
  managing_directors: string[];
  chart: 'SKR03' | 'SKR04';
  datev_consultant_number: number | null;
  datev_client_number: number | null;
  fiscal_year_start: string;
  eu_distance_sales_threshold_exceeded: boolean;
  statements_need_review: boolean;
  attributions_need_confirmation: boolean;
  /** How often the Umsatzsteuer-Voranmeldung is filed, and whether a Dauerfristverlängerung is granted. */
  vat_return_period: VatReturnPeriod;
  vat_return_extension: boolean;
  /** The stored policy; null: the defaults apply. */
  dunning: DunningPolicy | null;
  /** The mailbox without its password; null: mails go to the outbox folder. */
  smtp: (Omit<SmtpSettings, 'password_sealed'> & { password_stored: boolean }) | null;
};

const json = <T>(value: unknown): T | null => (value === null || value === undefined ? null : ((typeof value === 'string' ? JSON.parse(value) : value) as T));

export async function readCompanySettings(db: Database, companyId: string): Promise<CompanySettings> {
  const row = await db.selectFrom('companies').selectAll().where('id', '=', companyId).executeTakeFirst();
  if (!row) throw new AdminError(`no company ${companyId}`);
  const smtp = json<SmtpSettings>(row.smtp);
  return {
    name: row.name,
    legal_form: row.legal_form,
    street: row.street,
    house_number: row.house_number,
    zip: row.zip,
    city: row.city,
    country_code: row.country_code,
    vat_id: row.vat_id,
    tax_number: row.tax_number,
    email: row.email,
    phone: row.phone,
    contact_name: row.contact_name,
    iban: row.iban,
    bic: row.bic,
    bank_name: row.bank_name,
    account_holder: row.account_holder,
    small_business: row.small_business,
    payment_terms_days: row.payment_terms_days,
    timezone: row.timezone,
    invoice_number_pattern: row.invoice_number_pattern,
    contract_number_pattern: row.contract_number_pattern,
    register_court: row.register_court,
    register_number: row.register_number,
    managing_directors: row.managing_directors ?? [],
    chart: row.chart,
    datev_consultant_number: row.datev_consultant_number,
    datev_client_number: row.datev_client_number,
    fiscal_year_start: row.fiscal_year_start,
    eu_distance_sales_threshold_exceeded: row.eu_distance_threshold_exceeded,
    statements_need_review: row.statements_need_review,
    attributions_need_confirmation: row.attributions_need_confirmation,
    vat_return_period: row.vat_return_period,
    vat_return_extension: row.vat_return_extension,
    dunning: json<DunningPolicy>(row.dunning),
    smtp: smtp
      ? { host: smtp.host, port: smtp.port, secure: smtp.secure, user: smtp.user, from: smtp.from, password_stored: smtp.password_sealed !== null }
      : null,
  };
}

/**
 * The numbers the next invoice and the next contract would get today (nothing is drawn):
 * the counters' next values put into the patterns.
 */
export async function nextNumbers(
  db: Database,
  companyId: string,
  today: string,
  patterns: { invoice: string; contract: string },
): Promise<{ invoice: string; contract: string }> {
  // The contract counter's key is CONTRACT_NUMBERS.key of contracts/upsert-contract.ts.
  const keys = { invoice: invoiceRangeKey(today), contract: 'contract' };
  const rows = await db
    .selectFrom('number_ranges')
    .select(['range_key', 'next_value'])
    .where('company_id', '=', companyId)
    .where('range_key', 'in', [keys.invoice, keys.contract])
    .execute();
  const next = (key: string) => Number(rows.find((r) => r.range_key === key)?.next_value ?? 1);
  return {
    invoice: formatNumberPattern(patterns.invoice, today, next(keys.invoice)),
    contract: formatNumberPattern(patterns.contract, today, next('contract')),
  };
}
