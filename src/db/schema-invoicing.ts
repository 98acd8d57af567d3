// Row types of the invoicing tables (migrations/0002_invoicing.sql).
export type InvoicingTables = {};
