import type { FastifyInstance } from 'fastify';
import type { RouteDeps } from '../../http/route-deps.ts';
import { AppError } from '../../shared/errors.ts';
import { contractView } from './contract-view.ts';
import { findContractByRef } from './contracts.repository.ts';
import { reportUsageSchema, retrieveContractSchema, upsertContractSchema } from './contracts.schemas.ts';
import { reportUsage, type UsageRecordInput } from './report-usage.ts';
import { type ContractInput, upsertContract } from './upsert-contract.ts';

type ByRef = { source: string; external_ref: string };

export function registerContractRoutes(app: FastifyInstance, deps: RouteDeps) {
  app.put<{ Params: ByRef; Body: ContractInput }>(
    '/contracts/by-ref/:source/:external_ref',
    { schema: upsertContractSchema, config: { scope: 'partner:invoices:write' } },
    async (request, reply) => {
      const { source, external_ref } = request.params;
      const result = await upsertContract(deps.db, deps.clock, request.auth.companyId, { source, externalRef: external_ref }, request.body);
      return reply.code(result.created ? 201 : 200).send(result.contract);
    },
  );

  app.get<{ Params: ByRef }>(
    '/contracts/by-ref/:source/:external_ref',
    { schema: retrieveContractSchema, config: { scope: 'partner:invoices:read' } },
    async (request) => {
      const { source, external_ref } = request.params;
      const row = await findContractByRef(deps.db, request.auth.companyId, source, external_ref);
      if (!row) throw new AppError('contract_not_found');
      const customer = await deps.db
        .selectFrom('customers')
        .select('external_ref')
        .where('company_id', '=', row.company_id)
        .where('id', '=', row.customer_id)
        .executeTakeFirst();
      return contractView(deps.db, row, customer?.external_ref ?? null);
    },
  );

  app.post<{ Params: ByRef; Body: { records: UsageRecordInput[] } }>(
    '/contracts/by-ref/:source/:external_ref/usage',
    { schema: reportUsageSchema, config: { scope: 'partner:invoices:write' } },
    async (request, reply) => {
      const { source, external_ref } = request.params;
      const result = await reportUsage(deps.db, deps.clock, request.auth.companyId, { source, externalRef: external_ref }, request.body.records);
      return reply.code(result.recorded > 0 ? 201 : 200).send(result);
    },
  );
}
