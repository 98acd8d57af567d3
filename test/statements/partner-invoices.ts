import { recordPartnerInvoice } from '../../src/modules/statements/index.ts';
import type { TestApp } from '../helpers/app.ts';

// The partner's invoice for a request to invoice, as a person records it before the
// statement is paid (issue 24): here with exactly the amounts the statement asks for.

/** Records the partner's invoice `R-<statement number>` dated today with the statement's net, VAT and gross. */
export async function recordRequestedInvoice(t: TestApp, statementId: string): Promise<void> {
  const statement = await t.handle.db
    .selectFrom('commission_statements')
    .select(['number', 'net_cents', 'vat_cents', 'gross_cents', 'company_id'])
    .where('id', '=', statementId)
    .executeTakeFirstOrThrow();
  const company = await t.handle.db.selectFrom('companies').select('timezone').where('id', '=', statement.company_id).executeTakeFirstOrThrow();
  const money = (cents: number) => (Number(cents) / 100).toFixed(2);
  await recordPartnerInvoice(
    { db: t.handle.db, clock: t.clock },
    statementId,
    {
      number: `R-${statement.number}`,
      invoiceDate: t.clock.today(company.timezone),
      net: money(statement.net_cents),
      vat: money(statement.vat_cents),
      gross: money(statement.gross_cents),
      confirmMismatch: false,
    },
    { userId: t.company.userId, organizationId: t.company.organizationId, companyId: statement.company_id, email: t.company.adminEmail },
  );
}
