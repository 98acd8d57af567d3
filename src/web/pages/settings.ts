import type { FastifyInstance } from 'fastify';
import type { WebDeps } from '../web-request.ts';

// Company settings (issuing details, number patterns, letterhead, DATEV, flags, dunning policy), the mailbox with a test mail, accounting period locks.

export function registerSettingsPages(_web: FastifyInstance, _deps: WebDeps): void {}
