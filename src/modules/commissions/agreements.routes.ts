import type { FastifyInstance } from 'fastify';
import type { RouteDeps } from '../../http/route-deps.ts';
import { upsertCommissionAgreementSchema } from './agreements.schemas.ts';
import { type AgreementInput, upsertCommissionAgreement } from './upsert-agreement.ts';

type ByRef = { source: string; external_ref: string };

export function registerCommissionAgreementRoutes(app: FastifyInstance, deps: RouteDeps) {
  // 201 on create, 200 on update or no change (design §3).
  app.put<{ Params: ByRef; Body: AgreementInput }>(
    '/commission-agreements/by-ref/:source/:external_ref',
    { schema: upsertCommissionAgreementSchema, config: { scope: 'partner:commissions:write' } },
    async (request, reply) => {
      const { source, external_ref } = request.params;
      const result = await upsertCommissionAgreement(deps.db, deps.clock, request.auth.companyId, { source, externalRef: external_ref }, request.body);
      return reply.code(result.created ? 201 : 200).send(result.agreement);
    },
  );
}
