-- Among the jobs that are due, a job with a higher priority is claimed first (issue 26).
-- The billing run issues invoices in bill jobs and renders their documents in follow-up
-- jobs; with one order for all, every bill job of the run came before the first render
-- job, so the render threads idled while the run billed and the billing waited while they
-- rendered. A render job carries priority 1: the documents of an issued invoice come
-- before the next contracts are billed, and both kinds of work overlap. Every other job
-- keeps priority 0 and the order of before (run_at, then id).
alter table jobs add column priority smallint not null default 0;
create index jobs_due_by_priority on jobs (priority desc, run_at, id) where status = 'pending';
drop index jobs_due_in_order;
