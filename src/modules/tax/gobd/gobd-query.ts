import { type RawBuilder, sql } from 'kysely';
import pg from 'pg';
import type { Database } from '../../../db/connection.ts';

// Reads a GoBD table or document list page by page by its key, so that no query holds
// more than one page: `select … where <condition> and (k1, k2) > (last) order by k1, k2
// limit n`. The fragments are the module's own constants (gobd-tables.ts,
// gobd-documents.ts); the values {company}, {from}, {to}, {tz} are bound as parameters.

export type QueryParams = { company: string; from: string; to: string; tz: string };

export type PagedQuery = { select: string[]; from: string; where: string; keys: string[] };

/** A SQL fragment with {company}/{from}/{to}/{tz} bound as parameters. */
function bind(fragment: string, params: QueryParams): RawBuilder<unknown> {
  const parts = fragment.split(/\{(company|from|to|tz)\}/);
  const pieces: RawBuilder<unknown>[] = [];
  parts.forEach((part, i) => {
    if (i % 2 === 0) {
      if (part !== '') pieces.push(sql.raw(part));
    } else {
      const name = part as keyof QueryParams;
      pieces.push(name === 'from' || name === 'to' ? sql`${params[name]}::date` : sql`${params[name]}::text`);
    }
  });
  return sql.join(pieces, sql.raw(''));
}

/** The fragment with {company}/{from}/{to}/{tz} written in as quoted literals (for a COPY, which takes no parameters). */
function literal(fragment: string, params: QueryParams): string {
  return fragment.replace(
    /\{(company|from|to|tz)\}/g,
    (_, name: keyof QueryParams) => `${pg.escapeLiteral(params[name])}::${name === 'from' || name === 'to' ? 'date' : 'text'}`,
  );
}

/** The whole query as SQL text in key order, its values as literals (for a binary COPY). Fields c0…cn. */
export function queryText(query: PagedQuery, params: QueryParams): string {
  const select = query.select.map((expr, i) => `${expr} as c${i}`).join(', ');
  return `select ${literal(select, params)} from ${literal(query.from, params)} where ${literal(query.where, params)} order by ${query.keys.join(', ')}`;
}

/**
 * Every row of the query, in key order, `pageSize` rows per round trip; the next page is
 * read while the caller works on the current one. Row fields: c0…cn and k0…km.
 */
export async function* pages(db: Database, query: PagedQuery, params: QueryParams, pageSize: number): AsyncGenerator<Record<string, unknown>[]> {
  const select = [...query.select.map((expr, i) => `${expr} as c${i}`), ...query.keys.map((expr, i) => `${expr} as k${i}`)].join(', ');
  const order = query.keys.join(', ');
  const read = async (last: unknown[] | null) => {
    const after: RawBuilder<unknown> = last === null ? sql.raw('') : sql` and (${sql.raw(order)}) > (${sql.join(last.map((value) => sql`${value}`))})`;
    return (
      await sql<
        Record<string, unknown>
      >`select ${bind(select, params)} from ${bind(query.from, params)} where ${bind(query.where, params)}${after} order by ${sql.raw(order)} limit ${pageSize}`.execute(
        db,
      )
    ).rows;
  };
  let pending = read(null);
  for (;;) {
    const rows = await pending;
    if (rows.length === 0) return;
    const more = rows.length === pageSize;
    if (more) {
      const tail = rows[rows.length - 1] as Record<string, unknown>;
      pending = read(query.keys.map((_, i) => tail[`k${i}`]));
      // Awaited at the next turn; a caller that stops early must not leave it unhandled.
      pending.catch(() => {});
    }
    yield rows;
    if (!more) return;
  }
}
