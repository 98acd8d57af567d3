import type { FastifyInstance } from 'fastify';
import type { RouteDeps } from '../../http/route-deps.ts';
import { AppError } from '../../shared/errors.ts';
import { attributionView } from './attribution-view.ts';
import { findAttributionByRef, findNamedAttribution } from './attributions.repository.ts';
import { retrieveCommissionAttributionSchema, upsertCommissionAttributionSchema } from './attributions.schemas.ts';
import { type AttributionInput, upsertCommissionAttribution } from './upsert-attribution.ts';

type ByRef = { source: string; external_ref: string };

export function registerCommissionAttributionRoutes(app: FastifyInstance, deps: RouteDeps) {
  // 201 on create, 200 on update or no change (design §3).
  app.put<{ Params: ByRef; Body: AttributionInput }>(
    '/commission-attributions/by-ref/:source/:external_ref',
    { schema: upsertCommissionAttributionSchema, config: { scope: 'partner:commissions:write' } },
    async (request, reply) => {
      const { source, external_ref } = request.params;
      const result = await upsertCommissionAttribution(deps.db, deps.clock, request.auth.companyId, { source, externalRef: external_ref }, request.body);
      return reply.code(result.created ? 201 : 200).send(result.attribution);
    },
  );

  app.get<{ Params: ByRef }>(
    '/commission-attributions/by-ref/:source/:external_ref',
    { schema: retrieveCommissionAttributionSchema, config: { scope: 'partner:commissions:read' } },
    async (request) => {
      const { companyId } = request.auth;
      const named = await findNamedAttribution(deps.db, await findAttributionByRef(deps.db, companyId, request.params.source, request.params.external_ref));
      if (!named) throw new AppError('commission.attribution_not_found');
      const company = await deps.db.selectFrom('companies').select('timezone').where('id', '=', companyId).executeTakeFirstOrThrow();
      return attributionView(named, deps.clock.today(company.timezone));
    },
  );
}
