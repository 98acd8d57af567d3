// Revenue share (issue 14): partners, each also a supplier with a creditor number, and
// their agreements.

import type { FastifyInstance } from 'fastify';
import type { RouteDeps } from '../../http/route-deps.ts';
import { registerCommissionAgreementRoutes } from './agreements.routes.ts';
import { registerCommissionEntryRoutes } from './entries.routes.ts';
import { registerCommissionPartnerRoutes } from './partners.routes.ts';
import { registerRevenueEventRoutes } from './revenue-events.routes.ts';

export { agreementView } from './agreement-view.ts';
export { accrueInvoicePayments, type InvoicePaymentShare } from './ledger/accrue-payments.ts';
export { findAgreementByRef } from './agreements.repository.ts';
export { partnerView } from './partner-view.ts';
export { findPartnerByRef } from './partners.repository.ts';
export { upsertCommissionAgreement } from './upsert-agreement.ts';
export { upsertCommissionPartner } from './upsert-partner.ts';
export { registerCommissionAgreementRoutes, registerCommissionPartnerRoutes };

/** Every revenue-share route. */
export function registerCommissionRoutes(app: FastifyInstance, deps: RouteDeps) {
  registerCommissionPartnerRoutes(app, deps);
  registerCommissionAgreementRoutes(app, deps);
  registerRevenueEventRoutes(app, deps);
  registerCommissionEntryRoutes(app, deps);
}
