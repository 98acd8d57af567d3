-- Issue 24: a running job records the process that claimed it, by that process's liveness
-- token (db/liveness.ts). A job whose process has provably ended — on the embedded database
-- every process but the one holding the data folder; on PostgreSQL a process whose session
-- advisory lock is gone (kill -9 ends its connections) — is taken back at once instead of
-- after its lease runs out (5 minutes). Null: claimed without a token (before this
-- migration, or by a caller that has none); such a job waits for its lease as before.
alter table jobs add column locked_owner text;
