import type { ColumnType } from 'kysely';
import type { NoticeDocument } from '../modules/dunning/notice-document.ts';
import type { DunningLevel, Json, Timestamp } from './schema-types.ts';

export type { DunningLevel } from './schema-types.ts';

// Row types of the dunning table (migrations/0006_dunning.sql). The migration also adds
// companies.dunning (schema.ts) and invoices.last_dunning_on (schema-invoicing.ts).

export type NoticeStatus = 'pending' | 'sent' | 'cancelled' | 'failed';

export interface DunningNoticesTable {
  company_id: string;
  id: string;
  invoice_id: string;
  level: DunningLevel;
  notice_date: string;
  deadline: string;
  status: NoticeStatus;
  open_cents: number;
  paid_cents: number;
  fee_cents: number;
  fees_cents: number;
  interest_cents: number;
  lump_sum_cents: number;
  total_cents: number;
  default_since: string | null;
  document: Json<NoticeDocument>;
  pdf: ColumnType<Buffer | null, Buffer | null | undefined, Buffer | null>;
  pdf_sha256: ColumnType<string | null, string | null | undefined, string | null>;
  message_id: ColumnType<string | null, string | null | undefined, string | null>;
  sent_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** When a run began to mail the notice (migrations/0010): set before the mail leaves. */
  mail_started_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  reason: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A Mahnsperre (migrations/0041_dunning_stops.sql): for one invoice or all of a customer's, until lifted. */
export interface DunningStopsTable {
  company_id: string;
  id: string;
  invoice_id: string | null;
  customer_id: string | null;
  reason: string;
  set_by: string;
  set_at: Timestamp;
  lifted_by: ColumnType<string | null, string | null | undefined, string | null>;
  lifted_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}
