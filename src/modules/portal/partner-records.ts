import type { Database } from '../../db/connection.ts';
import type { AgreementTier, StatementKindColumn, StatementStatus } from '../../db/schema-commissions.ts';
import { contractMonth, tierPercent } from '../commissions/index.ts';

// What else the portal shows a partner of its own (issue 27 §2): its agreements with their
// tiers and, per attributed customer, the contract month it is in today; its statements
// (issued ones; a draft is the company's business until issued); its payouts with the
// execution day and the account, masked. Every query is bound to the session's company and
// partner.

export type PortalAgreement = {
  id: string;
  name: string | null;
  ref: string;
  startDate: string;
  endDate: string | null;
  allCustomers: boolean;
  tiers: AgreementTier[];
  /** For an agreement on attributed customers: each active attribution with its month today. */
  customers: { name: string; since: string; until: string | null; monthNow: number | null; percentNow: string | null }[];
  /** For an all-customers agreement counted from the first paid revenue: its month today. */
  monthNow: number | null;
  percentNow: string | null;
};

export async function partnerAgreements(db: Database, companyId: string, partnerId: string, today: string): Promise<PortalAgreement[]> {
  const agreements = await db
    .selectFrom('commission_agreements')
    .select(['id', 'name', 'external_ref', 'start_date', 'end_date', 'applies_to', 'anchor', 'tiers'])
    .where('company_id', '=', companyId)
    .where('partner_id', '=', partnerId)
    .orderBy('start_date')
    .orderBy('id')
    .execute();
  if (agreements.length === 0) return [];
  const ids = agreements.map((a) => a.id);
  const attributions = await db
    .selectFrom('commission_attributions as t')
    .innerJoin('customers as c', (join) => join.onRef('c.company_id', '=', 't.company_id').onRef('c.id', '=', 't.customer_id'))
    .select(['t.agreement_id', 't.customer_id', 't.start_date', 't.end_date', 'c.name'])
    .where('t.company_id', '=', companyId)
    .where('t.partner_id', '=', partnerId)
    .where('t.status', '=', 'active')
    .where('t.agreement_id', 'in', ids)
    .orderBy('c.name')
    .orderBy('t.start_date')
    .execute();
  const anchors = await db
    .selectFrom('commission_anchors')
    .select(['agreement_id', 'customer_key', 'anchor_date'])
    .where('company_id', '=', companyId)
    .where('agreement_id', 'in', ids)
    .execute();
  const anchorOf = new Map(anchors.map((a) => [`${a.agreement_id}\n${a.customer_key}`, a.anchor_date]));
  const now = (anchor: string | undefined, tiers: AgreementTier[]) => {
    if (!anchor) return { monthNow: null, percentNow: null };
    const month = Math.max(1, contractMonth(anchor, today));
    return { monthNow: month, percentNow: tierPercent(tiers, month) };
  };
  return agreements.map((a) => {
    const tiers = a.tiers;
    const allCustomers = a.applies_to === 'all_customers';
    const customers = allCustomers
      ? []
      : attributions
          .filter((t) => t.agreement_id === a.id)
          .map((t) => {
            const anchor = a.anchor === 'attribution_start' ? t.start_date : anchorOf.get(`${a.id}\n${t.customer_id}`);
            return { name: t.name, since: t.start_date, until: t.end_date, ...now(anchor, tiers) };
          });
    const whole = allCustomers && a.anchor === 'first_paid_revenue' ? now(anchorOf.get(`${a.id}\n`), tiers) : { monthNow: null, percentNow: null };
    return {
      id: a.id,
      name: a.name,
      ref: a.external_ref,
      startDate: a.start_date,
      endDate: a.end_date,
      allCustomers,
      tiers,
      customers,
      ...whole,
    };
  });
}

/** How the partner sees a statement's state. */
export type PortalStatementState = 'issued' | 'sent' | 'cancelled' | 'objected' | 'paid' | 'invoice_missing' | 'invoice_received';

export type PortalStatement = {
  id: string;
  number: string;
  type: 'statement' | 'cancellation';
  kind: StatementKindColumn;
  status: StatementStatus;
  state: PortalStatementState;
  issueDate: string;
  periodStart: string;
  periodEnd: string;
  netCents: number;
  vatCents: number;
  grossCents: number;
  taxNote: string;
  objectedAt: Date | null;
  paidAt: Date | null;
  invoiceNumber: string | null;
  /** The statement's own e-invoice (a Gutschrift's XRechnung or ZUGFeRD), or null. */
  eInvoiceFormat: 'xrechnung' | 'zugferd' | null;
};

function stateOf(row: { type: string; kind: string; status: StatementStatus; paid_at: Date | null; invoice_number: string | null }): PortalStatementState {
  if (row.status === 'cancelled' || row.status === 'objected') return row.status;
  if (row.paid_at) return 'paid';
  if (row.type === 'statement' && row.kind === 'partner_invoice') return row.invoice_number ? 'invoice_received' : 'invoice_missing';
  return row.status === 'sent' ? 'sent' : 'issued';
}

function statementQuery(db: Database, companyId: string, partnerId: string) {
  return db
    .selectFrom('commission_statements as s')
    .leftJoin('commission_partner_invoices as i', (join) => join.onRef('i.company_id', '=', 's.company_id').onRef('i.statement_id', '=', 's.id'))
    .select([
      's.id',
      's.number',
      's.type',
      's.kind',
      's.status',
      's.issue_date',
      's.period_start',
      's.period_end',
      's.net_cents',
      's.vat_cents',
      's.gross_cents',
      's.tax_note',
      's.objected_at',
      's.paid_at',
      's.e_invoice_format',
      'i.number as invoice_number',
    ])
    .where('s.company_id', '=', companyId)
    .where('s.partner_id', '=', partnerId)
    .where('s.number', 'is not', null)
    .where('s.status', '<>', 'draft');
}

type StatementSelect = Awaited<ReturnType<ReturnType<typeof statementQuery>['executeTakeFirstOrThrow']>>;

function portalStatement(row: StatementSelect): PortalStatement {
  return {
    id: row.id,
    number: row.number as string,
    type: row.type,
    kind: row.kind,
    status: row.status,
    state: stateOf(row),
    issueDate: row.issue_date as string,
    periodStart: row.period_start,
    periodEnd: row.period_end,
    netCents: Number(row.net_cents),
    vatCents: Number(row.vat_cents),
    grossCents: Number(row.gross_cents),
    taxNote: row.tax_note,
    objectedAt: row.objected_at,
    paidAt: row.paid_at,
    invoiceNumber: row.invoice_number ?? null,
    eInvoiceFormat: row.e_invoice_format,
  };
}

/** The partner's issued statements and cancellations, newest first (the latest 500). */
export async function partnerStatements(db: Database, companyId: string, partnerId: string): Promise<PortalStatement[]> {
  const rows = await statementQuery(db, companyId, partnerId).orderBy('s.seq', 'desc').limit(500).execute();
  return rows.map(portalStatement);
}

/** One of the partner's statements, or null (unknown, a draft, another partner's or company's). */
export async function partnerStatement(db: Database, companyId: string, partnerId: string, statementId: string): Promise<PortalStatement | null> {
  const row = await statementQuery(db, companyId, partnerId).where('s.id', '=', statementId).executeTakeFirst();
  return row ? portalStatement(row) : null;
}

export type PortalPayout = { executionDate: string; amountCents: number; ibanMasked: string | null; statementNumber: string; statementId: string };

/** The transfers to the partner, newest first. */
export async function partnerPayouts(db: Database, companyId: string, partnerId: string, limit = 500): Promise<PortalPayout[]> {
  const rows = await db
    .selectFrom('payout_run_items as i')
    .innerJoin('payout_runs as r', (join) => join.onRef('r.company_id', '=', 'i.company_id').onRef('r.id', '=', 'i.run_id'))
    .innerJoin('commission_statements as s', (join) => join.onRef('s.company_id', '=', 'i.company_id').onRef('s.id', '=', 'i.statement_id'))
    .select(['r.execution_date', 'i.amount_cents', 'i.iban_masked', 's.number', 's.id'])
    .where('i.company_id', '=', companyId)
    .where('i.partner_id', '=', partnerId)
    .orderBy('r.execution_date', 'desc')
    .orderBy('r.created_at', 'desc')
    .orderBy('s.number')
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    executionDate: row.execution_date,
    amountCents: Number(row.amount_cents),
    ibanMasked: row.iban_masked,
    statementNumber: row.number as string,
    statementId: row.id,
  }));
}
