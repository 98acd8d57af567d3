import type { Database } from '../../db/connection.ts';
import type { PartnerChangeKind } from '../../db/schema-portal.ts';
import { inTransaction } from '../../db/transaction.ts';
import { enqueueJob } from '../../jobs/index.ts';
import type { Clock } from '../../shared/clock.ts';
import { newId } from '../../shared/ids.ts';
import type { Sealer } from '../../shared/secrets.ts';
import { type PartnerActor, recordAudit } from '../audit/audit-log.ts';
import { ChangeRequestError } from './change-request-error.ts';
import { type PartnerChangeRequest, partnerChangeRequest } from './change-request-list.ts';
import { CHANGE_COMPANY_MAIL_JOB, CHANGE_PARTNER_MAIL_JOB, type ChangeCompanyMail, type ChangePartnerMail } from './change-request-mail.ts';
import { checkedValues, clearOfStored, clearOnFile, sameValues, shownOnFile, shownValues, storedValues } from './change-request-values.ts';
import type { PortalSession } from './portal-sessions.ts';

// The partner asks in the portal to change its payout account, address, VAT ID or tax
// number (issue 27 §3). Nothing changes on the partner until an admin of the company
// confirms it in the app (decide-change-request.ts): a changed payout account is what a
// fraud would change first, so the company must see and agree to it. The company and the
// partner are mailed (jobs, committed with the request); the IBAN is kept sealed and shown
// masked only. A new request of the same kind supersedes the pending one; the partner may
// withdraw its pending request. Every step is in the company's audit trail.

/** The partner's row as a change request reads it. */
export const PARTNER_DATA_COLUMNS = [
  'iban_sealed',
  'iban_masked',
  'bic',
  'street',
  'house_number',
  'zip',
  'city',
  'country_code',
  'vat_id',
  'tax_number',
] as const;

const partnerActor = (session: PortalSession): PartnerActor => ({
  partnerAccountId: session.accountId,
  organizationId: session.organizationId,
  companyId: session.companyId,
});

/**
 * The partner asks for a change: the values checked (German messages by field in a
 * ChangeRequestError `invalid`), refused when on file already (`unchanged`) or pending
 * already (`already_requested`). The company is asked by mail to confirm it in the app.
 */
export async function requestPartnerChange(
  deps: { db: Database; clock: Clock; sealer: Sealer },
  session: PortalSession,
  input: { kind: string; values: Record<string, string | undefined> },
): Promise<PartnerChangeRequest> {
  const id = await inTransaction(deps.db, async (trx) => {
    // The partner's row locked: two requests of one partner at once take turns.
    const partner = await trx
      .selectFrom('commission_partners')
      .select(PARTNER_DATA_COLUMNS)
      .where('company_id', '=', session.companyId)
      .where('id', '=', session.partnerId)
      .forNoKeyUpdate()
      .executeTakeFirst();
    if (!partner) throw new ChangeRequestError('not_found', 'Diesen Partner gibt es nicht.');
    const clear = checkedValues(input.kind, input.values, partner);
    const kind = input.kind as PartnerChangeKind;
    if (sameValues(kind, clear, clearOnFile(kind, partner, deps.sealer))) throw new ChangeRequestError('unchanged', 'Das ist bereits hinterlegt.');
    const pending = await trx
      .selectFrom('partner_change_requests')
      .select(['id', 'requested'])
      .where('company_id', '=', session.companyId)
      .where('partner_id', '=', session.partnerId)
      .where('kind', '=', kind)
      .where('status', '=', 'pending')
      .forUpdate()
      .executeTakeFirst();
    if (pending && sameValues(kind, clear, clearOfStored(kind, pending.requested, deps.sealer)))
      throw new ChangeRequestError('already_requested', 'Genau diese Änderung ist bereits beantragt und wartet auf die Bestätigung.');
    const now = deps.clock.now();
    if (pending)
      await trx
        .updateTable('partner_change_requests')
        .set({ status: 'superseded', decided_at: now })
        .where('company_id', '=', session.companyId)
        .where('id', '=', pending.id)
        .execute();
    const requested = storedValues(kind, clear, deps.sealer);
    const current = shownOnFile(kind, partner);
    const id = newId('pcr');
    await trx
      .insertInto('partner_change_requests')
      .values({
        company_id: session.companyId,
        id,
        partner_id: session.partnerId,
        account_id: session.accountId,
        kind,
        requested: JSON.stringify(requested),
        current: JSON.stringify(current),
        status: 'pending',
        requested_at: now,
        decided_at: null,
        decided_by: null,
        decision_note: null,
      })
      .execute();
    await recordAudit(trx, partnerActor(session), now, {
      action: 'partner.change_requested',
      subjectType: 'commission_partner',
      subjectId: session.partnerId,
      before: current,
      after: { request_id: id, kind, ...shownValues(kind, requested), ...(pending ? { superseded: pending.id } : {}) },
    });
    const at = now.toISOString();
    const toCompany: ChangeCompanyMail = { request_id: id, event: 'requested', by: session.email, at, superseded: Boolean(pending) };
    const toPartner: ChangePartnerMail = { request_id: id, event: 'requested', at };
    await enqueueJob(trx, { name: CHANGE_COMPANY_MAIL_JOB, companyId: session.companyId, payload: toCompany, runAt: now });
    await enqueueJob(trx, { name: CHANGE_PARTNER_MAIL_JOB, companyId: session.companyId, payload: toPartner, runAt: now });
    return id;
  });
  return (await partnerChangeRequest(deps.db, session.companyId, id)) as PartnerChangeRequest;
}

/** The partner withdraws its own pending request (another partner's: `not_found`). The company is mailed. */
export async function withdrawPartnerChange(deps: { db: Database; clock: Clock }, session: PortalSession, requestId: string): Promise<void> {
  await inTransaction(deps.db, async (trx) => {
    const request = await trx
      .selectFrom('partner_change_requests')
      .select(['kind', 'status'])
      .where('company_id', '=', session.companyId)
      .where('partner_id', '=', session.partnerId)
      .where('id', '=', requestId)
      .forUpdate()
      .executeTakeFirst();
    if (!request) throw new ChangeRequestError('not_found', 'Diesen Antrag gibt es nicht.');
    if (request.status !== 'pending') throw new ChangeRequestError('not_pending', 'Dieser Antrag ist nicht mehr offen.');
    const now = deps.clock.now();
    await trx
      .updateTable('partner_change_requests')
      .set({ status: 'withdrawn', decided_at: now })
      .where('company_id', '=', session.companyId)
      .where('id', '=', requestId)
      .execute();
    await recordAudit(trx, partnerActor(session), now, {
      action: 'partner.change_withdrawn',
      subjectType: 'commission_partner',
      subjectId: session.partnerId,
      before: { status: 'pending' },
      after: { request_id: requestId, kind: request.kind, status: 'withdrawn' },
    });
    const payload: ChangeCompanyMail = { request_id: requestId, event: 'withdrawn', by: session.email, at: now.toISOString(), superseded: false };
    await enqueueJob(trx, { name: CHANGE_COMPANY_MAIL_JOB, companyId: session.companyId, payload, runAt: now });
  });
}
