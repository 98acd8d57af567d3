// Revenue share (issue 14): partners, each also a supplier with a creditor number, and
// their agreements.

import type { FastifyInstance } from 'fastify';
import type { RouteDeps } from '../../http/route-deps.ts';
import { registerCommissionAgreementRoutes } from './agreements.routes.ts';
import { registerCommissionAttributionRoutes } from './attributions.routes.ts';
import { registerCommissionEntryRoutes } from './entries.routes.ts';
import { registerCommissionPartnerRoutes } from './partners.routes.ts';
import { registerRevenueEventRoutes } from './revenue-events.routes.ts';
import './payout-account.ts'; // the job that mails the company about a changed payout account

export { agreementView } from './agreement-view.ts';
export { findAgreementByRef } from './agreements.repository.ts';
export { attributeInvoiceCustomer, type InvoiceAttribution } from './attribute-invoice-customer.ts';
export { type AttributionView, attributionView } from './attribution-view.ts';
export { AttributionDecisionError, confirmAttribution, type DecidedAttribution, rejectAttribution } from './decide-attribution.ts';
export { partnerListQuery } from './entries.schemas.ts';
export { contractMonth, divideHalfUp, tierPercent } from './ledger/accrual.ts';
export { accrueInvoicePayments, type InvoicePaymentShare } from './ledger/accrue-payments.ts';
export { applyBalanceDeltas, BalanceDeltas, balanceMoveWrite } from './ledger/balances.ts';
export { type InvoicePaymentReversal, reverseInvoicePayments } from './ledger/reverse-payments.ts';
export { decodeSeqCursor, encodeSeqCursor, listedPartner, type PartnerListQuery } from './list-entries.ts';
export { partnerView } from './partner-view.ts';
export { findPartnerByRef } from './partners.repository.ts';
export { maskIban, PAYOUT_NOTICE_JOB, PayoutAccountError, setPayoutAccount } from './payout-account.ts';
export { upsertCommissionAgreement } from './upsert-agreement.ts';
export { upsertCommissionAttribution } from './upsert-attribution.ts';
export { upsertCommissionPartner } from './upsert-partner.ts';
export { registerCommissionAgreementRoutes, registerCommissionPartnerRoutes };

/** Every revenue-share route. */
export function registerCommissionRoutes(app: FastifyInstance, deps: RouteDeps) {
  registerCommissionPartnerRoutes(app, deps);
  registerCommissionAgreementRoutes(app, deps);
  registerCommissionAttributionRoutes(app, deps);
  registerRevenueEventRoutes(app, deps);
  registerCommissionEntryRoutes(app, deps);
}
