import type { FastifyInstance } from 'fastify';
import type { WebDeps } from '../web-request.ts';

// Revenue-share statements: issue, send, cancel, objection, mark paid.

export function registerStatementPages(_web: FastifyInstance, _deps: WebDeps): void {}
