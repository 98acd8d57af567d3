import type { Database } from '../../db/connection.ts';
import type { Messages } from '../i18n.ts';
import type { AuditSaid, EventSaid } from '../texts/trail.ts';
import { date } from './money.ts';

// Events and audit entries in words (texts/trail.ts), their area, and their subjects by name:
// an invoice by its number, a partner or customer by name, a statement by its number, a
// person by e-mail — with the page of the subject where there is one.

type Sentence<S> = (said: S) => string;

/** An event as a sentence; a kind without words (written by a newer version) says so instead of showing its key. */
export function eventSentence(t: Messages, type: string, said: EventSaid): string {
  const words = (t.trail.events as Record<string, Sentence<EventSaid>>)[type];
  return words ? words(said) : t.trail.unknownEvent;
}

export function auditSentence(t: Messages, action: string, said: AuditSaid): string {
  const words = (t.trail.audit as Record<string, Sentence<AuditSaid>>)[action];
  return words ? words(said) : t.trail.unknownAudit(said.who);
}

/** Whether the texts have words for an event kind / an audit action (the test of every kind). */
export const hasEventWords = (t: Messages, type: string) => type in t.trail.events;
export const hasAuditWords = (t: Messages, action: string) => action in t.trail.audit;

export type Area = keyof Messages['trail']['areas'];

/** The areas of the trail's filter, by the first part of the action. */
export const AREA_PREFIXES: Record<Area, string[]> = {
  invoices: ['invoice'],
  customers: ['customer'],
  contracts: ['contract'],
  bank: ['payment', 'bank'],
  dunning: ['dunning'],
  share: ['statement', 'attribution', 'partner', 'payout', 'agreement'],
  settings: ['company', 'period', 'datev', 'gobd'],
  people: ['user', 'person', 'api_key', 'webhook'],
};

export const AREAS = Object.keys(AREA_PREFIXES) as Area[];

export function areaOf(action: string): Area | null {
  const prefix = action.split('.')[0] ?? '';
  return AREAS.find((area) => AREA_PREFIXES[area].includes(prefix)) ?? null;
}

export type Subject = { name: string; href: string | null };
type Entry = { subject_type: string; subject_id: string | null; after: Record<string, unknown> | null; before: Record<string, unknown> | null };

const key = (type: string, id: string | null) => `${type}:${id ?? ''}`;
const text = (value: unknown) => (value === null || value === undefined ? '' : String(value));

/**
 * The subjects of audit entries by name and page. Read in one query per subject type;
 * a subject of another company is never named (every query is bound to the company).
 */
export async function nameSubjects(db: Database, t: Messages, companyId: string, organizationId: string, entries: Entry[]): Promise<Map<string, Subject>> {
  const names = new Map<string, Subject>();
  const ids = (type: string) => [...new Set(entries.filter((e) => e.subject_type === type && e.subject_id).map((e) => e.subject_id as string))];
  const load = async <R extends { id: string }>(type: string, query: (list: string[]) => Promise<R[]>, subject: (row: R) => Subject) => {
    const list = ids(type);
    if (list.length === 0) return;
    for (const row of await query(list)) names.set(key(type, row.id), subject(row));
  };
  await Promise.all([
    load(
      'invoice',
      (list) => db.selectFrom('invoices').select(['id', 'number']).where('company_id', '=', companyId).where('id', 'in', list).execute(),
      (r) => ({ name: r.number ?? t.trail.subjects.draft, href: `/app/invoices/${r.id}` }),
    ),
    load(
      'customer',
      (list) => db.selectFrom('customers').select(['id', 'name']).where('company_id', '=', companyId).where('id', 'in', list).execute(),
      (r) => ({ name: r.name, href: `/app/customers/${r.id}` }),
    ),
    load(
      'dunning_notice',
      (list) =>
        db
          .selectFrom('dunning_notices as n')
          .innerJoin('invoices as i', (join) => join.onRef('i.company_id', '=', 'n.company_id').onRef('i.id', '=', 'n.invoice_id'))
          .select(['n.id', 'i.id as invoice_id', 'i.number'])
          .where('n.company_id', '=', companyId)
          .where('n.id', 'in', list)
          .execute(),
      (r) => ({ name: r.number ?? r.invoice_id, href: `/app/invoices/${r.invoice_id}` }),
    ),
    load(
      'user',
      (list) =>
        db
          .selectFrom('users as u')
          .innerJoin('memberships as m', 'm.user_id', 'u.id')
          .select(['u.id', 'u.email'])
          .where('m.organization_id', '=', organizationId)
          .where('u.id', 'in', list)
          .execute(),
      (r) => ({ name: r.email, href: '/app/users' }),
    ),
    load(
      'company',
      (list) => db.selectFrom('companies').select(['id', 'name']).where('organization_id', '=', organizationId).where('id', 'in', list).execute(),
      (r) => ({ name: r.name, href: '/app/settings' }),
    ),
    load(
      'commission_partner',
      (list) => db.selectFrom('commission_partners').select(['id', 'name']).where('company_id', '=', companyId).where('id', 'in', list).execute(),
      (r) => ({ name: r.name, href: `/app/partners/${r.id}` }),
    ),
    load(
      'commission_statement',
      (list) => db.selectFrom('commission_statements').select(['id', 'number']).where('company_id', '=', companyId).where('id', 'in', list).execute(),
      (r) => ({ name: r.number ?? r.id, href: `/app/statements/${r.id}` }),
    ),
    load(
      'commission_attribution',
      (list) =>
        db
          .selectFrom('commission_attributions as a')
          .innerJoin('customers as c', (join) => join.onRef('c.company_id', '=', 'a.company_id').onRef('c.id', '=', 'a.customer_id'))
          .innerJoin('commission_partners as p', (join) => join.onRef('p.company_id', '=', 'a.company_id').onRef('p.id', '=', 'a.partner_id'))
          .select(['a.id', 'c.name as customer', 'p.name as partner'])
          .where('a.company_id', '=', companyId)
          .where('a.id', 'in', list)
          .execute(),
      (r) => ({ name: t.trail.subjects.attribution(r.customer, r.partner), href: '/app/attributions' }),
    ),
    load(
      'api_key',
      (list) => db.selectFrom('api_keys').select(['id', 'key_prefix']).where('organization_id', '=', organizationId).where('id', 'in', list).execute(),
      (r) => ({ name: `${r.key_prefix}…`, href: '/app/api-keys' }),
    ),
    load(
      'webhook_endpoint',
      (list) => db.selectFrom('webhook_endpoints').select(['id', 'url']).where('company_id', '=', companyId).where('id', 'in', list).execute(),
      (r) => ({ name: r.url, href: `/app/webhooks/${r.id}` }),
    ),
    load(
      'webhook_delivery',
      (list) =>
        db
          .selectFrom('webhook_deliveries as d')
          .innerJoin('webhook_endpoints as w', (join) => join.onRef('w.company_id', '=', 'd.company_id').onRef('w.id', '=', 'd.endpoint_id'))
          .select([(eb) => eb.cast<string>('d.id', 'text').as('id'), 'w.id as endpoint_id', 'w.url'])
          .where('d.company_id', '=', companyId)
          .where('d.id', 'in', [0, ...list.filter((id) => /^\d{1,15}$/.test(id)).map(Number)])
          .execute(),
      (r) => ({ name: r.url, href: `/app/webhooks/${r.endpoint_id}` }),
    ),
    load(
      'payout_run',
      (list) => db.selectFrom('payout_runs').select(['id', 'execution_date']).where('company_id', '=', companyId).where('id', 'in', list).execute(),
      (r) => ({ name: t.trail.subjects.payoutRun(date(r.execution_date)), href: `/app/payouts/${r.id}` }),
    ),
  ]);
  // Subjects named by the entry itself.
  for (const e of entries) {
    if (e.subject_type === 'datev_export' && !names.has(key(e.subject_type, e.subject_id)))
      names.set(key(e.subject_type, e.subject_id), {
        name: t.trail.subjects.datevExport(date(text(e.after?.from)), date(text(e.after?.to))),
        href: '/app/exports',
      });
    if (e.subject_type === 'gobd_export' && !names.has(key(e.subject_type, e.subject_id)))
      names.set(key(e.subject_type, e.subject_id), {
        name: t.trail.subjects.datevExport(date(text(e.after?.from)), date(text(e.after?.to))),
        href: '/app/tax/gobd',
      });
  }
  return names;
}

/** An entry's subject: its name, else what the entry itself says (an invoice number kept in it), else its id. */
export function subjectOf(names: Map<string, Subject>, e: Entry): Subject {
  const found = names.get(key(e.subject_type, e.subject_id));
  if (found) return found;
  const kept = text(e.after?.number ?? e.before?.number ?? e.after?.invoice_number ?? e.after?.invoice ?? e.before?.invoice);
  return { name: kept || (e.subject_id ?? ''), href: null };
}
