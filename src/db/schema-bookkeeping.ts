// Row types of the bookkeeping tables (migrations/0003_bookkeeping.sql).
export type BookkeepingTables = {};
