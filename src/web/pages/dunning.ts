import type { FastifyInstance } from 'fastify';
import type { WebDeps } from '../web-request.ts';

// Dunning notices that could not be sent.

export function registerDunningPages(_web: FastifyInstance, _deps: WebDeps): void {}
