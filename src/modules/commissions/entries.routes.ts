import type { FastifyInstance } from 'fastify';
import type { RouteDeps } from '../../http/route-deps.ts';
import { listCommissionEntriesSchema } from './entries.schemas.ts';
import { listCommissionEntries, type PartnerListQuery } from './list-entries.ts';

export function registerCommissionEntryRoutes(app: FastifyInstance, deps: RouteDeps) {
  app.get<{ Querystring: PartnerListQuery }>(
    '/commission-entries',
    { schema: listCommissionEntriesSchema, config: { scope: 'partner:commissions:read' } },
    async (request) => listCommissionEntries(deps.db, request.auth.companyId, request.query),
  );
}
