import type { ColumnType } from 'kysely';

// Column types the table files share (schema.ts re-exports them): kept apart so that the
// table files need not import schema.ts, which imports them.

export type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
export type Json<T> = ColumnType<T, string, string>;

export type Tier = { from: string; to: string | null; unit_price: string; flat_price?: string | null };

/** 0 = payment reminder, 1–3 = Mahnung 1–3. */
export type DunningLevel = 0 | 1 | 2 | 3;
