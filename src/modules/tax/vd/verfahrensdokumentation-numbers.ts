import { formatNumberPattern } from '../../../shared/number-pattern.ts';
import { type Block, table } from './document-model.ts';
import type { NumberRangeFacts, VdFacts } from './verfahrensdokumentation-facts.ts';

// The number ranges of the Verfahrensdokumentation: which documents carry numbers, their
// patterns, how far each counter has come, and whether every number drawn belongs to a
// document (GoBD: completeness; numbers are drawn in the issuing transaction, so a
// rollback returns the number and nothing is left out).
//
// The range keys are the ones the drawing modules use: `invoice:<year>` (invoicing/
// numbering.ts, invoices and stornos), `statement-GS:<year>` / `statement-AB:<year>`
// (statements/issue-statement.ts, fixed patterns GS-/AB-{yyyy}-{seq:5}), `contract`,
// `customer` and `creditor` (db/number-ranges.ts, contracts). `invoice_changes` is the
// change feed's position, no document number. A key not known here is listed by its name.

type Kind = { label: string; pattern: string; year: string | null; document: 'invoice' | 'GS' | 'AB' | null };

const STATEMENT_LABEL = {
  GS: 'Gutschriften (Provisionsabrechnungen im Gutschriftsverfahren, § 14 Abs. 2 S. 2 UStG) und ihre Stornos',
  AB: 'Provisionsabrechnungen ohne Rechnungscharakter (an Privatpersonen, Bitte um Rechnungsstellung) und ihre Stornos',
} as const;

function kindOf(facts: VdFacts, key: string): Kind | null {
  const invoice = /^invoice:(\d{4})$/.exec(key);
  if (invoice) return { label: 'Rechnungen und Stornorechnungen', pattern: facts.company.invoice_number_pattern, year: invoice[1]!, document: 'invoice' };
  const statement = /^statement-(GS|AB):(\d{4})$/.exec(key);
  if (statement) {
    const prefix = statement[1] as 'GS' | 'AB';
    return { label: STATEMENT_LABEL[prefix], pattern: `${prefix}-{yyyy}-{seq:5}`, year: statement[2]!, document: prefix };
  }
  switch (key) {
    case 'contract':
      return { label: 'Vertragsnummern (wiederkehrende Verträge)', pattern: facts.company.contract_number_pattern, year: null, document: null };
    case 'customer':
      return { label: 'Kundennummern (zugleich Debitorenkonten)', pattern: '{seq}', year: null, document: null };
    case 'creditor':
      return { label: 'Kreditorennummern (Partner und Lieferanten)', pattern: '{seq}', year: null, document: null };
    case 'invoice_changes':
      return null;
    default:
      return { label: `Nummernkreis „${key}“`, pattern: '{seq}', year: null, document: null };
  }
}

/** The counter's first value: invoices, statements and contracts count from 1, customers from 10000, creditors from 70000. */
function firstValue(key: string): number {
  if (key === 'customer') return 10000;
  if (key === 'creditor') return 70000;
  return 1;
}

export function numberRangeBlocks(facts: VdFacts): Block[] {
  const year = facts.today.slice(0, 4);
  const ranges: NumberRangeFacts[] = [...facts.ranges];
  // The current year's invoice range exists only once its first number is drawn.
  if (!ranges.some((r) => r.range_key === `invoice:${year}`)) ranges.push({ range_key: `invoice:${year}`, next_value: 1, last_value: 999_999_999 });
  const rows: string[][] = [];
  const checks: string[][] = [];
  const order = (key: string) => (key.startsWith('invoice:') ? 0 : key.startsWith('statement-') ? 1 : 2);
  ranges.sort((a, b) => order(a.range_key) - order(b.range_key) || a.range_key.localeCompare(b.range_key));
  for (const range of ranges) {
    const kind = kindOf(facts, range.range_key);
    if (!kind) continue;
    const drawn = range.next_value - firstValue(range.range_key);
    const current = kind.year === null || kind.year === year;
    const next =
      range.next_value > range.last_value
        ? 'erschöpft'
        : current
          ? formatNumberPattern(kind.pattern, facts.today, range.next_value)
          : `– (Jahr ${kind.year} abgelaufen)`;
    // A pattern with the month ({mm}) prints the month the number was drawn in, which the counter does not keep.
    const last =
      drawn <= 0
        ? '–'
        : kind.pattern.includes('{mm}')
          ? `Zähler ${range.next_value - 1}`
          : formatNumberPattern(kind.pattern, current ? facts.today : `${kind.year}-12-31`, range.next_value - 1);
    rows.push([kind.label, kind.pattern, kind.year ?? 'fortlaufend', String(drawn), last, next]);
    if (kind.document && kind.year) {
      const documents =
        kind.document === 'invoice'
          ? facts.invoicesByYear.filter((r) => r.year === kind.year).reduce((sum, r) => sum + r.count, 0)
          : facts.statementsByYear.filter((r) => r.year === kind.year && r.prefix === kind.document).reduce((sum, r) => sum + r.count, 0);
      checks.push([
        kind.year,
        kind.document === 'invoice' ? 'Rechnungen und Stornorechnungen' : `${kind.document}-Nummern`,
        String(drawn),
        String(documents),
        drawn === documents ? 'vollständig' : 'Abweichung – bitte prüfen',
      ]);
    }
  }
  return [
    table(['Belegart / Nummernkreis', 'Muster', 'Jahr', 'Vergeben', 'Zuletzt vergeben', 'Nächste Nummer'], rows, [3, 1.8, 1, 1, 1.7, 1.7]),
    table(['Jahr', 'Nummernkreis', 'Vergebene Nummern', 'Belege mit Nummer', 'Ergebnis'], checks, [0.7, 2.4, 1.2, 1.2, 1.6]),
  ];
}
