import { execFileSync } from 'node:child_process';
import { XMLParser } from 'fast-xml-parser';

// Reading a GoBD export back as the auditor's software would: index.xml's tables and
// columns, each CSV parsed by what index.xml declares (`;`, CRLF, `"` encapsulation).

export type DeclaredColumn = { name: string; kind: 'Numeric' | 'AlphaNumeric' | 'Date'; accuracy: number | null; key: boolean };
export type DeclaredTable = { url: string; name: string; columns: DeclaredColumn[]; foreignKeys: { names: string[]; references: string }[] };

export function declaredTables(indexXml: string): DeclaredTable[] {
  const parser = new XMLParser({ ignoreAttributes: true, preserveOrder: true });
  const doc = parser.parse(indexXml) as Record<string, unknown>[];
  const child = (nodes: Record<string, unknown>[], name: string) => nodes.filter((n) => name in n).map((n) => n[name] as Record<string, unknown>[]);
  const text = (nodes: Record<string, unknown>[], name: string) => {
    const found = child(nodes, name)[0];
    return found === undefined ? '' : String((found[0] as { '#text'?: unknown } | undefined)?.['#text'] ?? '');
  };
  const dataSet = child(doc, 'DataSet')[0] ?? [];
  const media = child(dataSet, 'Media')[0] ?? [];
  return child(media, 'Table').map((table) => {
    const variable = child(table, 'VariableLength')[0] ?? [];
    const columns: DeclaredColumn[] = [];
    for (const node of variable) {
      const element = Object.keys(node).find((k) => k === 'VariablePrimaryKey' || k === 'VariableColumn');
      if (!element) continue;
      const parts = node[element] as Record<string, unknown>[];
      const numeric = child(parts, 'Numeric')[0];
      const kind = numeric ? 'Numeric' : child(parts, 'Date').length > 0 ? 'Date' : 'AlphaNumeric';
      const accuracy = numeric ? Number(text(numeric, 'Accuracy') || '0') : null;
      columns.push({ name: text(parts, 'Name'), kind, accuracy, key: element === 'VariablePrimaryKey' });
    }
    const foreignKeys = child(variable, 'ForeignKey').map((fk) => ({
      names: child(fk, 'Name').map((n) => String((n[0] as { '#text': unknown })['#text'])),
      references: text(fk, 'References'),
    }));
    return { url: text(table, 'URL'), name: text(table, 'Name'), columns, foreignKeys };
  });
}

/** Records of a `;`-separated, CRLF-delimited, `"`-encapsulated file (quotes doubled inside). */
export function parseCsv(content: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let cell = '';
  let quoted = false;
  let i = 0;
  while (i < content.length) {
    const ch = content[i] as string;
    if (quoted) {
      if (ch === '"' && content[i + 1] === '"') {
        cell += '"';
        i += 2;
        continue;
      }
      if (ch === '"') quoted = false;
      else cell += ch;
      i++;
      continue;
    }
    if (ch === '"') quoted = true;
    else if (ch === ';') {
      record.push(cell);
      cell = '';
    } else if (ch === '\r' && content[i + 1] === '\n') {
      record.push(cell);
      records.push(record);
      record = [];
      cell = '';
      i++;
    } else if (ch === '\n' || ch === '\r') throw new Error(`a bare line break outside quotes at ${i}`);
    else cell += ch;
    i++;
  }
  if (quoted) throw new Error('an unterminated quote');
  if (cell !== '' || record.length > 0) throw new Error('the last record has no CRLF');
  return records;
}

/** xmllint's complaints about index.xml against the DTD it names ([] when valid); null when xmllint is missing. */
export function dtdErrors(indexFile: string): string[] | null {
  try {
    execFileSync('xmllint', ['--version'], { stdio: 'ignore' });
  } catch {
    return null;
  }
  try {
    execFileSync('xmllint', ['--noout', '--valid', indexFile], { stdio: ['ignore', 'ignore', 'pipe'] });
    return [];
  } catch (error) {
    return String((error as { stderr?: Buffer }).stderr ?? error)
      .split('\n')
      .filter(Boolean);
  }
}
