// Revenue share (issue 14): partners so far, each also a supplier with a creditor number.

export { partnerView } from './partner-view.ts';
export { findPartnerByRef } from './partners.repository.ts';
export { registerCommissionPartnerRoutes } from './partners.routes.ts';
export { upsertCommissionPartner } from './upsert-partner.ts';
