import type { FastifyInstance } from 'fastify';
import type { RouteDeps } from '../../http/route-deps.ts';
import { productNotFound, productView } from './product-view.ts';
import { findProductByRef } from './products.repository.ts';
import { retrieveProductSchema, upsertProductSchema } from './products.schemas.ts';
import { type ProductInput, upsertProduct } from './upsert-product.ts';

type ByRef = { source: string; external_ref: string };

export function registerProductRoutes(app: FastifyInstance, deps: RouteDeps) {
  app.put<{ Params: ByRef; Body: ProductInput }>(
    '/products/by-ref/:source/:external_ref',
    { schema: upsertProductSchema, config: { scope: 'partner:invoices:write' } },
    async (request, reply) => {
      const { source, external_ref } = request.params;
      const result = await upsertProduct(deps.db, deps.clock, request.auth.companyId, { source, externalRef: external_ref }, request.body);
      return reply.code(result.created ? 201 : 200).send(result.product);
    },
  );

  app.get<{ Params: ByRef }>(
    '/products/by-ref/:source/:external_ref',
    { schema: retrieveProductSchema, config: { scope: 'partner:invoices:read' } },
    async (request) => {
      const { source, external_ref } = request.params;
      const row = await findProductByRef(deps.db, request.auth.companyId, source, external_ref);
      if (!row) throw productNotFound({ source, ref: external_ref });
      return productView(row);
    },
  );
}
