import type { FastifyInstance } from 'fastify';
import type { WebDeps } from '../web-request.ts';

// DATEV export download.

export function registerExportPages(_web: FastifyInstance, _deps: WebDeps): void {}
