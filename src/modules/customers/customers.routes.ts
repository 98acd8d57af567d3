import type { FastifyInstance } from 'fastify';
import type { RouteDeps } from '../../http/route-deps.ts';
import { AppError } from '../../shared/errors.ts';
import { customerView } from './customer-view.ts';
import { findCustomerByRef } from './customers.repository.ts';
import { retrieveCustomerSchema, upsertCustomerSchema } from './customers.schemas.ts';
import { type CustomerInput, upsertCustomer } from './upsert-customer.ts';

type ByRef = { source: string; external_ref: string };

export function registerCustomerRoutes(app: FastifyInstance, deps: RouteDeps) {
  app.put<{ Params: ByRef; Body: CustomerInput }>(
    '/customers/by-ref/:source/:external_ref',
    { schema: upsertCustomerSchema, config: { scope: 'partner:customers:write' } },
    async (request, reply) => {
      const { source, external_ref } = request.params;
      const result = await upsertCustomer(deps.db, deps.clock, request.auth.companyId, { source, externalRef: external_ref }, request.body);
      return reply.code(result.created ? 201 : 200).send(result.customer);
    },
  );

  app.get<{ Params: ByRef }>(
    '/customers/by-ref/:source/:external_ref',
    { schema: retrieveCustomerSchema, config: { scope: 'partner:invoices:read' } },
    async (request) => {
      const row = await findCustomerByRef(deps.db, request.auth.companyId, request.params.source, request.params.external_ref);
      if (!row) throw new AppError('customer_not_found');
      return customerView(row);
    },
  );
}
