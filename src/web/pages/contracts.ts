import type { FastifyInstance } from 'fastify';
import type { WebDeps } from '../web-request.ts';

// Contracts with their billing cycles.

export function registerContractPages(_web: FastifyInstance, _deps: WebDeps): void {}
