import { eventRetentionDays } from '../../config.ts';
import { defineDailyTask } from '../../jobs/scheduler.ts';
import { pruneWebhookHistory } from './prune-webhook-history.ts';

// The daily task of this module, registered when the module is imported (index.ts).
// Retention is measured in real time, like every webhook time (retries, leases, attempt
// times): `kontor jobs run --as-of` a later date cannot make history look old.

defineDailyTask('webhooks.prune', ({ db, companyId }) => pruneWebhookHistory(db, { companyId, now: new Date(), retentionDays: eventRetentionDays() }), {
  totals: ['events', 'deliveries', 'attempts', 'capped'],
});
