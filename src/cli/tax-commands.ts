import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Filing, FilingRhythm, TaxPeriod } from '../modules/tax/index.ts';
import { formatDate, formatMoney } from '../shared/german-format.ts';
import { formatCents } from '../shared/money.ts';
import { dateFlag, type ModuleCommand, parseCommandArgs as parse, printResult as print, requiredFlag as required } from './command-kit.ts';
import { UsageError } from './io.ts';

// Loaded when a command runs, not when `kontor` starts (commands.ts).
const tax = () => import('../modules/tax/index.ts');

// `kontor export ustva`: the figures of the Umsatzsteuer-Voranmeldung of a month or a
// quarter, from the books; --json lists every document behind every Kennzahl.
// `kontor export zm`: the Zusammenfassende Meldung of the period as the BZSt's upload file
// (refused, with every reason, while a VAT ID would make the upload fail).

type Tax = Awaited<ReturnType<typeof tax>>;

/**
 * --company and --period, checked: a usage error for a bad period; `exists` false when there
 * is no such company. Without --period, the company's last period that has ended by today
 * (its rhythm: the previous month, quarter or year; `rhythmFor` turns it into another return's, the ZM's).
 */
async function periodAndCompany(
  values: Record<string, string | boolean | undefined>,
  ctx: Parameters<ModuleCommand['run']>[2],
  t: Tax,
  rhythmFor?: (rhythm: FilingRhythm) => FilingRhythm,
) {
  const companyId = required(values, 'company');
  const company = await ctx.db.selectFrom('companies').select(['timezone', 'vat_return_period']).where('id', '=', companyId).executeTakeFirst();
  let period: ReturnType<Tax['taxPeriod']>;
  try {
    if (typeof values.period === 'string') period = t.taxPeriod(values.period);
    else {
      const rhythm = company?.vat_return_period ?? 'monthly';
      period = t.lastEndedPeriod(rhythmFor ? rhythmFor(rhythm) : rhythm, ctx.clock.today(company?.timezone ?? 'Europe/Berlin'));
    }
  } catch (error) {
    if (error instanceof t.TaxPeriodError) throw new UsageError(`--period: ${error.message}`);
    throw error;
  }
  return { period, companyId, exists: Boolean(company) };
}

/** The company's rhythm and the period's deadline, or why the period is none the company files. */
function filingLines(t: Tax, filing: Filing, period: TaxPeriod, due: 'ustva' | 'zm'): string[] {
  const rhythm = t.RHYTHM_DE[filing.rhythm];
  const lines = [`Voranmeldungszeitraum der Firma: ${rhythm}${filing.extension ? ', mit Dauerfristverlängerung' : ''}`];
  if (due === 'zm') {
    if (filing.zm_due) lines.push(`abzugeben bis ${formatDate(filing.zm_due)}`);
  } else if (period.kind === 'year') lines.push('Jahressummen der Buchungen (etwa für die Umsatzsteuererklärung)');
  else if (!filing.is_filing_period) lines.push(`für diesen Zeitraum gibt die Firma keine Voranmeldung ab (sie meldet ${rhythm})`);
  else if (filing.ustva_due) lines.push(`abzugeben bis ${formatDate(filing.ustva_due)}`);
  return lines;
}

const money = (cents: number) => formatMoney(formatCents(cents));

export const TAX_COMMANDS: ModuleCommand[] = [
  {
    name: 'export ustva',
    usage: [
      'kontor export ustva --company ID [--period YYYY-MM|YYYY-Qn|YYYY] [--json]   the Umsatzsteuer-Voranmeldung figures from the books (default: the last period that has ended)',
    ],
    async run(args, io, ctx) {
      const { values } = parse(args, { company: { type: 'string' }, period: { type: 'string' } }, 0);
      const t = await tax();
      const { period, companyId, exists } = await periodAndCompany(values, ctx, t);
      if (!exists) {
        io.err(`kontor: no company ${companyId}`);
        return 1;
      }
      const report = await t.ustvaReport(ctx.db, companyId, period);
      const text = [
        `Umsatzsteuer-Voranmeldung ${period.label} (${period.from} bis ${period.to})${report.filed ? ' — abgegeben (Zeitraum gesperrt)' : ''}`,
        ...(report.small_business ? [] : [filingLines(t, report.filing, period, 'ustva').join('; ')]),
        ...(report.note ? [report.note] : []),
        ...report.lines.map(
          (line) =>
            `${(line.kz ? `Kz ${line.kz}` : '').padEnd(6)} ${line.form.padStart(14)}  ${line.label}${line.unit === 'euro' || line.kz === null ? ` (gebucht ${money(line.booked_cents)})` : ''}${line.documents.length > 0 ? `, ${line.documents.length} Beleg(e)` : ''}`,
        ),
      ].join('\n');
      print(io, Boolean(values.json), report, text);
      return 0;
    },
  },
  {
    name: 'export zm',
    usage: [
      'kontor export zm --company ID [--period YYYY-MM|YYYY-Qn] [--out FILE] [--json]   the Zusammenfassende Meldung as the BZSt upload file (CSV v3.0; default: the last quarter, or month for monthly filers)',
    ],
    async run(args, io, ctx) {
      const { values } = parse(args, { company: { type: 'string' }, period: { type: 'string' }, out: { type: 'string' } }, 0);
      const t = await tax();
      const { period, companyId, exists } = await periodAndCompany(values, ctx, t, t.zmRhythm);
      if (!exists) {
        io.err(`kontor: no company ${companyId}`);
        return 1;
      }
      if (period.kind === 'year')
        throw new UsageError('--period: the Zusammenfassende Meldung is filed per month or quarter (2026-11 or 2026-Q4), not per year');
      const report = await t.zmReport(ctx.db, companyId, period);
      if (report.problems.length > 0) {
        io.err(`kontor: the Zusammenfassende Meldung ${period.label} cannot be uploaded as it is:`);
        for (const problem of report.problems) io.err(`  ${problem}`);
        return 1;
      }
      let file: string | null = null;
      if (report.rows.length > 0) {
        file = path.resolve(ctx.cwd, typeof values.out === 'string' && values.out !== '' ? values.out : t.zmFileName(period));
        try {
          await writeFile(file, t.zmCsv(report));
        } catch (error) {
          io.err(`kontor: cannot write ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
          return 1;
        }
      }
      const text = [
        `Zusammenfassende Meldung ${period.label} (${period.from} bis ${period.to})${report.filed ? ' — Zeitraum gesperrt' : ''}`,
        ...(report.small_business || report.rows.length === 0 ? [] : [filingLines(t, report.filing, period, 'zm').join('; ')]),
        ...(report.note ? [report.note] : []),
        ...report.rows.map(
          (row) =>
            `${row.vat_id.padEnd(16)} ${String(row.amount_euros).padStart(10)} ${row.kind}  (gebucht ${money(row.amount_cents)}, ${row.documents.length} Beleg(e))`,
        ),
        ...(file ? [file] : []),
      ].join('\n');
      print(io, Boolean(values.json), { ...report, file }, text);
      return 0;
    },
  },
  {
    name: 'export gobd',
    usage: [
      'kontor export gobd --company ID --from YYYY-MM-DD --to YYYY-MM-DD --out DIR --by EMAIL [--json]   the GoBD audit export (Z3): CSV tables, index.xml, documents',
    ],
    async run(args, io, ctx) {
      const { values } = parse(
        args,
        { company: { type: 'string' }, from: { type: 'string' }, to: { type: 'string' }, out: { type: 'string' }, by: { type: 'string' } },
        0,
      );
      const companyId = required(values, 'company');
      const from = dateFlag(required(values, 'from'), 'from');
      const to = dateFlag(required(values, 'to'), 'to');
      const dir = path.resolve(ctx.cwd, required(values, 'out'));
      const by = required(values, 'by');
      const existing = await readdir(dir).catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? [] : Promise.reject(error)));
      if (existing.length > 0) {
        io.err(`kontor: ${dir} is not empty; the export goes into a new or empty folder`);
        return 1;
      }
      const t = await tax();
      const { actorFor, Refusal } = await import('./app-action-commands.ts');
      try {
        // The person who hands the data to the auditor (a member or admin of the company), in the audit trail.
        const actor = await actorFor(ctx, by, companyId, false);
        const summary = await t.writeGobdExport(
          ctx.db,
          companyId,
          { from, to, now: ctx.clock.now(), actor, ...(ctx.copyRows ? { copyRows: ctx.copyRows } : {}) },
          t.directorySink(dir),
        );
        const text = [
          `GoBD-Export ${from} bis ${to} in ${dir}${summary.locked ? '' : ' (Zeitraum nicht festgeschrieben: die Daten können sich noch ändern)'}`,
          ...summary.tables.map((table) => `${table.file.padEnd(28)} ${String(table.rows).padStart(9)} Zeile(n)`),
          `${'dokumente/'.padEnd(28)} ${String(summary.documents).padStart(9)} Datei(en)`,
          ...summary.hash_mismatches.map((name) => `Achtung: ${name} weicht von der gespeicherten Prüfsumme ab`),
        ].join('\n');
        print(io, Boolean(values.json), { dir, ...summary }, text);
        return summary.hash_mismatches.length > 0 ? 1 : 0;
      } catch (error) {
        if (error instanceof Refusal || error instanceof t.GobdExportError) {
          io.err(`kontor: ${error.message}`);
          return 1;
        }
        throw error;
      }
    },
  },
  {
    name: 'export verfahrensdokumentation',
    usage: ['kontor export verfahrensdokumentation --company ID [--out DIR] [--json]   a draft of the GoBD Verfahrensdokumentation (Markdown and PDF)'],
    async run(args, io, ctx) {
      const { values } = parse(args, { company: { type: 'string' }, out: { type: 'string' } }, 0);
      const companyId = required(values, 'company');
      const exists = await ctx.db.selectFrom('companies').select('id').where('id', '=', companyId).executeTakeFirst();
      if (!exists) {
        io.err(`kontor: no company ${companyId}`);
        return 1;
      }
      const t = await tax();
      const draft = await t.verfahrensdokumentation(ctx.db, companyId, ctx.clock.now());
      const dir = path.resolve(ctx.cwd, typeof values.out === 'string' && values.out !== '' ? values.out : '.');
      const files = [path.join(dir, `${draft.fileName}.md`), path.join(dir, `${draft.fileName}.pdf`)] as const;
      try {
        await mkdir(dir, { recursive: true });
        await writeFile(files[0], draft.markdown);
        await writeFile(files[1], draft.pdf);
      } catch (error) {
        io.err(`kontor: cannot write into ${dir}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
        return 1;
      }
      print(io, Boolean(values.json), { markdown: files[0], pdf: files[1] }, files.join('\n'));
      return 0;
    },
  },
];
