import type { FastifyInstance } from 'fastify';
import type { WebDeps } from '../web-request.ts';

// API keys: create with scopes and expiry (shown once), list, revoke.

export function registerApiKeyPages(_web: FastifyInstance, _deps: WebDeps): void {}
