import { sql } from 'kysely';
import type { Database } from '../../../db/connection.ts';
import type { Chart } from '../../../db/schema-bookkeeping.ts';
import { calendarDate } from '../../../shared/clock.ts';

// What the Verfahrensdokumentation (issue 28 §3) says about one company, read from the
// database: master data, number ranges and the documents drawn from them, stored files,
// the journal, period locks, the audit trail, people, keys and interfaces. Reads only,
// and only this company's rows (and its organisation's people who reach it). Nothing
// secret is read: no password hash, no key hash, no sealed SMTP password, no IBAN of a
// partner. Counts are plain numbers; no amount is read.

export type CompanyFacts = {
  id: string;
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
  register_court: string | null;
  register_number: string | null;
  managing_directors: string[];
  small_business: boolean;
  vat_return_period: 'monthly' | 'quarterly' | 'annual';
  vat_return_extension: boolean;
  chart: Chart;
  timezone: string;
  fiscal_year_start: string;
  datev_consultant_number: number | null;
  datev_client_number: number | null;
  invoice_number_pattern: string;
  contract_number_pattern: string;
  payment_terms_days: number;
  smtp_host: string | null;
  dunning_enabled: boolean;
};

export type NumberRangeFacts = { range_key: string; next_value: number; last_value: number };

export type VdFacts = {
  today: string;
  company: CompanyFacts;
  organizationName: string;
  ranges: NumberRangeFacts[];
  /** Numbered invoices and stornos per year of issue. */
  invoicesByYear: { year: string; type: 'invoice' | 'storno'; count: number }[];
  /** Numbered statements per number prefix (GS, AB) and year of issue. */
  statementsByYear: { prefix: 'GS' | 'AB'; year: string; count: number }[];
  counts: {
    customers: number;
    partners: number;
    contracts: number;
    invoiceFiles: { pdf: number; xml: number };
    statementFiles: number;
    partnerUploadsAccepted: number;
    dunningNotices: number;
    payoutRuns: number;
    bankStatements: number;
    webhookEndpoints: number;
  };
  bankFormats: string[];
  journal: { entries: number; lines: number; first: string | null; last: string | null; byType: { type: string; count: number }[] };
  lockedUntil: string | null;
  lockHistory: { locked_until: string; locked_on: string; by: string | null }[];
  audit: { rows: number; organizationRows: number; first: string | null; byAction: { action: string; count: number }[] };
  datevExports: { count: number; last: string | null };
  members: { email: string; role: 'admin' | 'member'; active: boolean }[];
  apiKeys: { scopes: string[]; all_companies: boolean; created_on: string; expires_on: string | null; creator: string }[];
  partnerAccounts: { total: number; active: number };
  migrations: { count: number; latest: string | null };
};

const n = (value: unknown) => Number(value ?? 0);

export async function gatherVdFacts(db: Database, companyId: string, now: Date): Promise<VdFacts> {
  const row = await db
    .selectFrom('companies as c')
    .innerJoin('organizations as o', 'o.id', 'c.organization_id')
    .leftJoin('period_locks as l', 'l.company_id', 'c.id')
    .select([
      'c.id',
      'c.organization_id',
      'o.name as organization_name',
      'c.name',
      'c.legal_form',
      'c.street',
      'c.house_number',
      'c.zip',
      'c.city',
      'c.country_code',
      'c.vat_id',
      'c.tax_number',
      'c.email',
      'c.register_court',
      'c.register_number',
      'c.managing_directors',
      'c.small_business',
      'c.vat_return_period',
      'c.vat_return_extension',
      'c.chart',
      'c.timezone',
      'c.fiscal_year_start',
      'c.datev_consultant_number',
      'c.datev_client_number',
      'c.invoice_number_pattern',
      'c.contract_number_pattern',
      'c.payment_terms_days',
      sql<string | null>`c.smtp->>'host'`.as('smtp_host'),
      sql<boolean>`coalesce((c.dunning->>'enabled')::boolean, true)`.as('dunning_enabled'),
      'l.locked_until',
    ])
    .where('c.id', '=', companyId)
    .executeTakeFirst();
  if (!row) throw new Error(`no company ${companyId}`);
  const { organization_id: organizationId, organization_name: organizationName, locked_until: lockedUntil, ...company } = row;
  const tz = company.timezone;
  const day = (instant: Date) => calendarDate(instant, tz);
  const count = (table: 'customers' | 'commission_partners' | 'contracts' | 'dunning_notices' | 'payout_runs' | 'bank_statements') =>
    db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('company_id', '=', companyId)
      .executeTakeFirstOrThrow()
      .then((r) => n(r.n));

  const [ranges, invoicesByYear, statementsByYear, invoiceFiles, statementFiles, uploads, webhooks, bankFormats] = await Promise.all([
    db.selectFrom('number_ranges').select(['range_key', 'next_value', 'last_value']).where('company_id', '=', companyId).orderBy('range_key').execute(),
    db
      .selectFrom('invoices')
      .select(['type', sql<string>`substr(issue_date::text, 1, 4)`.as('year'), (eb) => eb.fn.countAll<string>().as('n')])
      .where('company_id', '=', companyId)
      .where('number', 'is not', null)
      .groupBy(['type', sql`substr(issue_date::text, 1, 4)`])
      .orderBy('year')
      .orderBy('type')
      .execute(),
    db
      .selectFrom('commission_statements')
      .select([
        sql<string>`substr(number, 1, 2)`.as('prefix'),
        sql<string>`substr(issue_date::text, 1, 4)`.as('year'),
        (eb) => eb.fn.countAll<string>().as('n'),
      ])
      .where('company_id', '=', companyId)
      .where('number', 'is not', null)
      .groupBy([sql`substr(number, 1, 2)`, sql`substr(issue_date::text, 1, 4)`])
      .orderBy('year')
      .orderBy('prefix')
      .execute(),
    db
      .selectFrom('invoice_files')
      .select(['kind', (eb) => eb.fn.countAll<string>().as('n')])
      .where('company_id', '=', companyId)
      .groupBy('kind')
      .execute(),
    db
      .selectFrom('commission_statement_files')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('company_id', '=', companyId)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('partner_invoice_uploads')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('company_id', '=', companyId)
      .where('accepted', '=', true)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('webhook_endpoints')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('company_id', '=', companyId)
      .where('removed_at', 'is', null)
      .executeTakeFirstOrThrow(),
    db.selectFrom('bank_statements').select('format').distinct().where('company_id', '=', companyId).orderBy('format').execute(),
  ]);
  const [customers, partners, contracts, dunningNotices, payoutRuns, bankStatements] = await Promise.all([
    count('customers'),
    count('commission_partners'),
    count('contracts'),
    count('dunning_notices'),
    count('payout_runs'),
    count('bank_statements'),
  ]);

  const [journal, journalLines, byType, lockHistory, audit, organizationAudit, byAction, datev] = await Promise.all([
    db
      .selectFrom('journal_entries')
      .select([(eb) => eb.fn.countAll<string>().as('n'), (eb) => eb.fn.min('entry_date').as('first'), (eb) => eb.fn.max('entry_date').as('last')])
      .where('company_id', '=', companyId)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('journal_lines')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('company_id', '=', companyId)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('journal_entries')
      .select(['document_type', (eb) => eb.fn.countAll<string>().as('n')])
      .where('company_id', '=', companyId)
      .groupBy('document_type')
      .orderBy('document_type')
      .execute(),
    db
      .selectFrom('period_lock_history as h')
      .leftJoin('users as u', 'u.id', 'h.locked_by')
      .select(['h.locked_until', 'h.locked_at', 'u.email'])
      .where('h.company_id', '=', companyId)
      .orderBy('h.locked_until')
      .execute(),
    db
      .selectFrom('audit_log')
      .select([(eb) => eb.fn.countAll<string>().as('n'), (eb) => eb.fn.min('at').as('first')])
      .where('organization_id', '=', organizationId)
      .where('company_id', '=', companyId)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('audit_log')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('organization_id', '=', organizationId)
      .where('company_id', 'is', null)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('audit_log')
      .select(['action', (eb) => eb.fn.countAll<string>().as('n')])
      .where('organization_id', '=', organizationId)
      .where('company_id', '=', companyId)
      .groupBy('action')
      .orderBy('action')
      .execute(),
    db
      .selectFrom('audit_log')
      .select([(eb) => eb.fn.countAll<string>().as('n'), (eb) => eb.fn.max('at').as('last')])
      .where('organization_id', '=', organizationId)
      .where('company_id', '=', companyId)
      .where('action', '=', 'datev.exported')
      .executeTakeFirstOrThrow(),
  ]);

  // The people who reach this company: members of its organisation with access to it.
  const members = await db
    .selectFrom('memberships as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .innerJoin('company_access as a', (join) => join.onRef('a.user_id', '=', 'm.user_id').on('a.company_id', '=', companyId))
    .select(['u.email', 'm.role', 'm.active'])
    .where('m.organization_id', '=', organizationId)
    .orderBy('m.role')
    .orderBy('u.email')
    .execute();
  // Keys that reach the company (its own, or all companies of the organisation), not revoked: scopes and dates only.
  const apiKeys = await db
    .selectFrom('api_keys as k')
    .innerJoin('users as u', 'u.id', 'k.creator_user_id')
    .select(['k.scopes', 'k.all_companies', 'k.created_at', 'k.expires_at', 'u.email'])
    .where('k.organization_id', '=', organizationId)
    .where((eb) => eb.or([eb('k.company_id', '=', companyId), eb('k.all_companies', '=', true)]))
    .where('k.revoked_at', 'is', null)
    .where((eb) => eb.or([eb('k.expires_at', 'is', null), eb('k.expires_at', '>', now)]))
    .orderBy('k.created_at')
    .orderBy('k.id')
    .execute();
  const partnerAccounts = await db
    .selectFrom('partner_accounts')
    .select([(eb) => eb.fn.countAll<string>().as('n'), sql<string>`count(*) filter (where active)`.as('active')])
    .where('company_id', '=', companyId)
    .executeTakeFirstOrThrow();
  const migrations = await sql<{ n: string; latest: string | null }>`select count(*) as n, max(version) as latest from schema_migrations`.execute(db);

  const files = (kind: string) => n(invoiceFiles.find((f) => f.kind === kind)?.n);
  const asDate = (value: unknown) => (value === null || value === undefined ? null : String(value).slice(0, 10));
  return {
    today: day(now),
    company: { ...company, managing_directors: company.managing_directors ?? [] },
    organizationName,
    ranges: ranges.map((r) => ({ range_key: r.range_key, next_value: n(r.next_value), last_value: n(r.last_value) })),
    invoicesByYear: invoicesByYear.map((r) => ({ year: r.year, type: r.type, count: n(r.n) })),
    statementsByYear: statementsByYear
      .filter((r) => r.prefix === 'GS' || r.prefix === 'AB')
      .map((r) => ({ prefix: r.prefix as 'GS' | 'AB', year: r.year, count: n(r.n) })),
    counts: {
      customers,
      partners,
      contracts,
      invoiceFiles: { pdf: files('pdf'), xml: files('xml') },
      statementFiles: n(statementFiles.n),
      partnerUploadsAccepted: n(uploads.n),
      dunningNotices,
      payoutRuns,
      bankStatements,
      webhookEndpoints: n(webhooks.n),
    },
    bankFormats: bankFormats.map((r) => r.format),
    journal: {
      entries: n(journal.n),
      lines: n(journalLines.n),
      first: asDate(journal.first),
      last: asDate(journal.last),
      byType: byType.map((r) => ({ type: r.document_type, count: n(r.n) })),
    },
    lockedUntil: lockedUntil ?? null,
    lockHistory: lockHistory.map((h) => ({ locked_until: h.locked_until, locked_on: day(h.locked_at), by: h.email })),
    audit: {
      rows: n(audit.n),
      organizationRows: n(organizationAudit.n),
      first: audit.first ? day(new Date(audit.first as Date)) : null,
      byAction: byAction.map((r) => ({ action: r.action, count: n(r.n) })),
    },
    datevExports: { count: n(datev.n), last: datev.last ? day(new Date(datev.last as Date)) : null },
    members: members.map((m) => ({ email: m.email, role: m.role, active: m.active })),
    apiKeys: apiKeys.map((k) => ({
      scopes: [...k.scopes].sort(),
      all_companies: k.all_companies,
      created_on: day(k.created_at),
      // A key works through the end of its expiry day in UTC (decisions.md, keys).
      expires_on: k.expires_at ? k.expires_at.toISOString().slice(0, 10) : null,
      creator: k.email,
    })),
    partnerAccounts: { total: n(partnerAccounts.n), active: n(partnerAccounts.active) },
    migrations: { count: n(migrations.rows[0]?.n), latest: migrations.rows[0]?.latest ?? null },
  };
}

/** What every part of the document is made from: the facts and Kontor's version. */
export type VdContext = { facts: VdFacts; version: string };
