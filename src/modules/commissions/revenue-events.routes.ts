import type { FastifyInstance } from 'fastify';
import type { RouteDeps } from '../../http/route-deps.ts';
import { prepareRevenueEvent, type RevenueEventBody } from './revenue-event-input.ts';
import { RevenueEventWriter } from './revenue-event-writer.ts';
import { createRevenueEventSchema } from './revenue-events.schemas.ts';

export function registerRevenueEventRoutes(app: FastifyInstance, deps: RouteDeps) {
  const writer = new RevenueEventWriter(deps.db, deps.clock);
  // 201 when stored, 200 for a repeat of (source, external_ref) with the first event (design §3).
  app.post<{ Body: RevenueEventBody }>(
    '/revenue-events',
    { schema: createRevenueEventSchema, config: { scope: 'partner:commissions:write' } },
    async (request, reply) => {
      const answer = await writer.submit(request.auth.companyId, prepareRevenueEvent(request.body));
      return reply.code(answer.status).send(answer.body);
    },
  );
}
