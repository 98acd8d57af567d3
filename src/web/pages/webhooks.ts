import type { FastifyInstance } from 'fastify';
import type { WebDeps } from '../web-request.ts';

// Webhook endpoints, their deliveries and attempts, re-send.

export function registerWebhookPages(_web: FastifyInstance, _deps: WebDeps): void {}
