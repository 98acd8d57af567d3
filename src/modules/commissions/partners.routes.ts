import type { FastifyInstance } from 'fastify';
import type { RouteDeps } from '../../http/route-deps.ts';
import { AppError } from '../../shared/errors.ts';
import { partnerView } from './partner-view.ts';
import { findPartnerByRef } from './partners.repository.ts';
import { retrieveCommissionPartnerSchema, upsertCommissionPartnerSchema } from './partners.schemas.ts';
import { type PartnerInput, upsertCommissionPartner } from './upsert-partner.ts';

type ByRef = { source: string; external_ref: string };

export function registerCommissionPartnerRoutes(app: FastifyInstance, deps: RouteDeps) {
  // 200 for a create too (interface §4 upsertCommissionPartner, design §3).
  app.put<{ Params: ByRef; Body: PartnerInput }>(
    '/commission-partners/by-ref/:source/:external_ref',
    { schema: upsertCommissionPartnerSchema, config: { scope: 'partner:commissions:write' } },
    async (request) => {
      const { source, external_ref } = request.params;
      return upsertCommissionPartner(deps.db, deps.clock, request.auth.companyId, { source, externalRef: external_ref }, request.body);
    },
  );

  app.get<{ Params: ByRef }>(
    '/commission-partners/by-ref/:source/:external_ref',
    { schema: retrieveCommissionPartnerSchema, config: { scope: 'partner:commissions:read' } },
    async (request) => {
      const row = await findPartnerByRef(deps.db, request.auth.companyId, request.params.source, request.params.external_ref);
      if (!row) throw new AppError('commission.partner_not_found');
      return partnerView(row);
    },
  );
}
