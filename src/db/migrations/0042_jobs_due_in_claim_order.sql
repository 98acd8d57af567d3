-- Claiming takes the oldest due jobs in (run_at, id) order, LIMIT the free slots, FOR UPDATE
-- SKIP LOCKED (src/jobs/claim.ts). With the due index on run_at alone, PostgreSQL had to
-- read every due job and sort them by id for each claim: a backlog of 10,000 render jobs
-- (the billing run, all due at the same instant) made every claim read 10,000 rows, and
-- the run's database time per invoice grew with the backlog (issue 26). In claim order the
-- index hands out the first few and stops.
create index jobs_due_in_order on jobs (run_at, id) where status = 'pending';
drop index jobs_due;
