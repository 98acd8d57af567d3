import type { FastifyInstance } from 'fastify';
import type { WebDeps } from '../web-request.ts';

// Invoice drafts written in the app (never seen by the API), and sending and cancelling invoices.

export function registerInvoiceDraftPages(_web: FastifyInstance, _deps: WebDeps): void {}
