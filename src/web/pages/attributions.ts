import type { FastifyInstance } from 'fastify';
import type { WebDeps } from '../web-request.ts';

// Attributions waiting for confirmation: confirm or reject.

export function registerAttributionPages(_web: FastifyInstance, _deps: WebDeps): void {}
