-- A statement's PDF and XML are stored as they were issued, like an invoice's (0007) and a
-- dunning notice's (0006): out of line and uncompressed. TOAST's default tried pglz on every
-- stored PDF, which is deflated already, and threw the result away: ~2 % of the machine's
-- CPU during a statement run (issue 26, perf sample of PostgreSQL). Rows stored before keep
-- their form; PostgreSQL reads both.
alter table commission_statement_files alter column content set storage external;
