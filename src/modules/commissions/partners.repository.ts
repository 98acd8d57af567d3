import type { Insertable, Selectable } from 'kysely';
import type { Database } from '../../db/connection.ts';
import type { CommissionPartnersTable } from '../../db/schema-commissions.ts';
import type { Trx } from '../../db/transaction.ts';

// Plain Kysely functions for revenue-share partners and their suppliers.

export type PartnerRow = Selectable<CommissionPartnersTable>;

/** What a request decides about a partner (the rest is the app's: payee, objection, status, balance). */
export type PartnerFields = Pick<
  PartnerRow,
  | 'name'
  | 'email'
  | 'kind'
  | 'tax_status'
  | 'billing_mode'
  | 'self_billing_agreed_on'
  | 'self_billing_contract_ref'
  | 'statement_cadence'
  | 'min_payout_cents'
  | 'payout_rail'
  | 'e_invoice_format'
  | 'language'
  | 'notes'
  | 'street'
  | 'house_number'
  | 'zip'
  | 'city'
  | 'country_code'
  | 'vat_id'
  | 'tax_number'
>;

export function findPartnerByRef(db: Database | Trx, companyId: string, source: string, externalRef: string, forUpdate = false) {
  let query = db
    .selectFrom('commission_partners')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('external_source', '=', source)
    .where('external_ref', '=', externalRef);
  if (forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

export function insertSupplier(trx: Trx, row: { company_id: string; id: string; name: string; kreditorennummer: number; created_at: Date }) {
  return trx.insertInto('suppliers').values(row).execute();
}

/** The supplier's name follows its partner's, so the creditor account reads as the partner. */
export function renameSupplier(trx: Trx, companyId: string, supplierId: string, name: string) {
  return trx.updateTable('suppliers').set({ name }).where('company_id', '=', companyId).where('id', '=', supplierId).execute();
}

/** Inserts the partner unless its reference exists (a concurrent create): then undefined. */
export function insertPartner(trx: Trx, row: Insertable<CommissionPartnersTable>): Promise<PartnerRow | undefined> {
  return trx
    .insertInto('commission_partners')
    .values(row)
    .onConflict((oc) => oc.columns(['company_id', 'external_source', 'external_ref']).doNothing())
    .returningAll()
    .executeTakeFirst();
}

export function updatePartner(trx: Trx, companyId: string, id: string, fields: PartnerFields, now: Date): Promise<PartnerRow> {
  return trx
    .updateTable('commission_partners')
    .set({ ...fields, updated_at: now })
    .where('company_id', '=', companyId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}
