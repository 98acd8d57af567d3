import { createQueryId, type KyselyPlugin } from 'kysely';
import type { Database } from '../../src/db/connection.ts';

// Which statements a piece of code runs, in order (issue 26's tests of what runs under a
// number's row lock).

/** "update number_ranges", "select period_locks", …: the verb and first table of each statement a transaction ran. */
export function recording(db: Database): { db: Database; statements: string[] } {
  const statements: string[] = [];
  // Labelled when compiled, recorded when run: a write built for a larger statement (a
  // part of a data-modifying WITH) is compiled on its own too but never runs on its own.
  const labels = new Map<string, string>();
  const plugin: KyselyPlugin = {
    transformQuery({ node, queryId }) {
      const text = db.getExecutor().compileQuery(node, createQueryId()).sql.replace(/\s+/g, ' ').trim().toLowerCase();
      // A data-modifying WITH that writes several tables (the statement, its booking and its event) is one statement.
      const writes = [...text.matchAll(/\b(insert into "?(\w+)"?|update "?(\w+)"? set)/g)].map((match) =>
        match[2] ? `insert ${match[2]}` : `update ${match[3]}`,
      );
      if (text.startsWith('with ') && writes.length > 0) {
        labels.set(queryId.queryId, `with ${writes.join(' + ')}`);
        return node;
      }
      const verb = /^(select|insert into|update|delete from)\b/.exec(text)?.[1] ?? text.split(' ')[0];
      const table = verb === 'select' ? /\bfrom "?(\w+)"?/.exec(outermost(text))?.[1] : /^(?:insert into|update|delete from) "?(\w+)"?/.exec(text)?.[1];
      labels.set(queryId.queryId, `${verb?.replace(/ (into|from)$/, '')} ${table ?? ''}`.trim());
      return node;
    },
    transformResult: async ({ queryId, result }) => {
      const label = labels.get(queryId.queryId);
      if (label !== undefined) statements.push(label);
      return result;
    },
  };
  return { db: db.withPlugin(plugin), statements };
}

/** The statement without anything in parentheses (subqueries): its own FROM is the first left. */
function outermost(text: string): string {
  let flat = text;
  while (/\([^()]*\)/.test(flat)) flat = flat.replace(/\([^()]*\)/g, '');
  return flat;
}
