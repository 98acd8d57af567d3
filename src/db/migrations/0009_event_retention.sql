-- Webhooks: the per-endpoint send limit across worker processes, and retention pruning
-- of events, deliveries and attempts (src/modules/webhooks/README.md).

-- The claim counts an endpoint's deliveries in flight (any worker, live lease) before it
-- takes more: one index probe per endpoint.
create index webhook_deliveries_in_flight on webhook_deliveries (company_id, endpoint_id) where status = 'delivering';

-- When a delivery reached its final state (delivered, failed, cancelled), in real time:
-- the age pruning goes by. Set in the statement that makes it final.
alter table webhook_deliveries add column finished_at timestamptz;
-- Rows finished before this migration: the latest time known of them (an endpoint's
-- removal cancels its waiting deliveries without an attempt time), else their creation.
update webhook_deliveries d
set finished_at = coalesce(d.delivered_at, greatest(d.last_attempt_at, w.removed_at), d.created_at)
from webhook_endpoints w
where w.company_id = d.company_id and w.id = d.endpoint_id and d.status in ('delivered', 'failed', 'cancelled');
alter table webhook_deliveries add constraint webhook_deliveries_finished
  check ((status in ('delivered', 'failed', 'cancelled')) = (finished_at is not null));

-- Pruning walks a company's dispatched events oldest first.
create index events_dispatched on events (company_id, dispatched_at) where dispatched_at is not null;
