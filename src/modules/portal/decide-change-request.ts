import type { Database } from '../../db/connection.ts';
import type { PartnerChangeKind, PartnerChangeValues } from '../../db/schema-portal.ts';
import { inTransaction, type Trx } from '../../db/transaction.ts';
import { enqueueJob } from '../../jobs/index.ts';
import type { Clock } from '../../shared/clock.ts';
import type { Sealer } from '../../shared/secrets.ts';
import { type Actor, recordAudit } from '../audit/audit-log.ts';
import { setPayoutAccountIn } from '../commissions/payout-account.ts';
import { ChangeRequestError } from './change-request-error.ts';
import { type PartnerChangeRequest, partnerChangeRequest } from './change-request-list.ts';
import { CHANGE_COMPANY_MAIL_JOB, CHANGE_PARTNER_MAIL_JOB, type ChangeCompanyMail, type ChangePartnerMail } from './change-request-mail.ts';
import { CHANGE_FIELDS, shownOnFile, shownValues } from './change-request-values.ts';
import { PARTNER_DATA_COLUMNS } from './change-requests.ts';

// An admin of the company confirms or rejects a partner's change request (four eyes: the
// partner asks, a person of the company with the admin role agrees; the portal has no way
// to confirm). Confirming applies it in the same transaction: the payout account through
// setPayoutAccountIn (the app's own path: its audit row and its notice to the company),
// the IBAN taken from the sealed request; address, VAT ID and tax number on the partner.
//
// Address, VAT ID and tax number are also written by the company's own product through the
// API (upsert-partner, PUT semantics): a later PUT with other values writes them again. That
// is by design — the API mirrors the company's product, which should take the confirmed
// change over; the app's confirmation says so.

const MAX_NOTE = 2000;

/** Only a person with the admin role in the company's organisation, with access to the company. */
async function requireCompanyAdmin(trx: Trx, actor: Actor, companyId: string): Promise<void> {
  const membership = await trx
    .selectFrom('company_access as a')
    .innerJoin('companies as c', 'c.id', 'a.company_id')
    .innerJoin('memberships as m', (join) => join.onRef('m.organization_id', '=', 'c.organization_id').onRef('m.user_id', '=', 'a.user_id'))
    .select('m.role')
    .where('a.company_id', '=', companyId)
    .where('a.user_id', '=', actor.userId)
    .where('m.active', '=', true)
    .executeTakeFirst();
  if (actor.companyId !== companyId || membership?.role !== 'admin')
    throw new ChangeRequestError('not_admin', 'Nur ein Administrator der Firma bestätigt oder lehnt Änderungen des Partners ab.');
}

async function pendingRequest(trx: Trx, companyId: string, requestId: string) {
  const request = await trx
    .selectFrom('partner_change_requests as r')
    .innerJoin('partner_accounts as a', (join) => join.onRef('a.company_id', '=', 'r.company_id').onRef('a.id', '=', 'r.account_id'))
    .select(['r.partner_id', 'r.kind', 'r.requested', 'r.status', 'a.email as account_email'])
    .where('r.company_id', '=', companyId)
    .where('r.id', '=', requestId)
    .forUpdate('r')
    .executeTakeFirst();
  if (!request) throw new ChangeRequestError('not_found', 'Diesen Antrag gibt es nicht.');
  if (request.status !== 'pending') throw new ChangeRequestError('not_pending', 'Dieser Antrag ist nicht mehr offen.');
  return { ...request, kind: request.kind as PartnerChangeKind, requested: request.requested as PartnerChangeValues };
}

/** Confirms the pending request and applies it; the partner is mailed, and the company. */
export async function confirmPartnerChange(
  deps: { db: Database; clock: Clock; sealer: Sealer },
  actor: Actor & { email: string },
  companyId: string,
  requestId: string,
): Promise<PartnerChangeRequest> {
  await inTransaction(deps.db, async (trx) => {
    await requireCompanyAdmin(trx, actor, companyId);
    const request = await pendingRequest(trx, companyId, requestId);
    const { kind, requested } = request;
    const partner = await trx
      .selectFrom('commission_partners')
      .select(PARTNER_DATA_COLUMNS)
      .where('company_id', '=', companyId)
      .where('id', '=', request.partner_id)
      .forNoKeyUpdate()
      .executeTakeFirstOrThrow();
    const now = deps.clock.now();
    if (kind === 'payout_account') {
      const iban = deps.sealer.open(requested.iban_sealed as string);
      await setPayoutAccountIn(trx, deps, companyId, request.partner_id, { iban, bic: requested.bic ?? null }, actor, request.account_email);
    } else {
      const fields = Object.fromEntries(CHANGE_FIELDS[kind].map((field) => [field, requested[field] ?? null]));
      await trx
        .updateTable('commission_partners')
        .set({ ...fields, updated_at: now })
        .where('company_id', '=', companyId)
        .where('id', '=', request.partner_id)
        .execute();
    }
    await trx
      .updateTable('partner_change_requests')
      .set({ status: 'confirmed', decided_at: now, decided_by: actor.userId })
      .where('company_id', '=', companyId)
      .where('id', '=', requestId)
      .execute();
    await recordAudit(trx, actor, now, {
      action: 'partner.change_confirmed',
      subjectType: 'commission_partner',
      subjectId: request.partner_id,
      before: shownOnFile(kind, partner),
      after: { request_id: requestId, kind, ...shownValues(kind, requested) },
    });
    const at = now.toISOString();
    const toPartner: ChangePartnerMail = { request_id: requestId, event: 'confirmed', at };
    await enqueueJob(trx, { name: CHANGE_PARTNER_MAIL_JOB, companyId, payload: toPartner, runAt: now });
    // A payout account's change is mailed to the company by setPayoutAccountIn's notice.
    if (kind !== 'payout_account') {
      const toCompany: ChangeCompanyMail = { request_id: requestId, event: 'confirmed', by: actor.email, at, superseded: false };
      await enqueueJob(trx, { name: CHANGE_COMPANY_MAIL_JOB, companyId, payload: toCompany, runAt: now });
    }
  });
  return (await partnerChangeRequest(deps.db, companyId, requestId)) as PartnerChangeRequest;
}

/** Rejects the pending request with its reason (required), which the partner is mailed. */
export async function rejectPartnerChange(
  deps: { db: Database; clock: Clock },
  actor: Actor,
  companyId: string,
  requestId: string,
  note: string,
): Promise<PartnerChangeRequest> {
  const reason = note.replace(/\r\n?/g, '\n').trim();
  if (reason === '' || reason.length > MAX_NOTE)
    throw new ChangeRequestError('note_missing', `Bitte nennen Sie dem Partner den Grund der Ablehnung (höchstens ${MAX_NOTE} Zeichen).`);
  await inTransaction(deps.db, async (trx) => {
    await requireCompanyAdmin(trx, actor, companyId);
    const request = await pendingRequest(trx, companyId, requestId);
    const now = deps.clock.now();
    await trx
      .updateTable('partner_change_requests')
      .set({ status: 'rejected', decided_at: now, decided_by: actor.userId, decision_note: reason })
      .where('company_id', '=', companyId)
      .where('id', '=', requestId)
      .execute();
    await recordAudit(trx, actor, now, {
      action: 'partner.change_rejected',
      subjectType: 'commission_partner',
      subjectId: request.partner_id,
      before: { status: 'pending' },
      after: { request_id: requestId, kind: request.kind, status: 'rejected', note: reason },
    });
    const payload: ChangePartnerMail = { request_id: requestId, event: 'rejected', at: now.toISOString() };
    await enqueueJob(trx, { name: CHANGE_PARTNER_MAIL_JOB, companyId, payload, runAt: now });
  });
  return (await partnerChangeRequest(deps.db, companyId, requestId)) as PartnerChangeRequest;
}

export { MAX_NOTE as MAX_REJECTION_NOTE };
