import type { FastifyInstance } from 'fastify';
import type { WebDeps } from '../web-request.ts';

// Customers with their credits and open items.

export function registerCustomerPages(_web: FastifyInstance, _deps: WebDeps): void {}
