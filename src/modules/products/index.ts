import type { FastifyInstance } from 'fastify';
import type { RouteDeps } from '../../http/route-deps.ts';

// Products: articles kept by reference with a product number and a pricing model.
export function registerProductRoutes(_app: FastifyInstance, _deps: RouteDeps) {}
