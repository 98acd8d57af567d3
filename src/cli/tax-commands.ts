import { formatMoney } from '../shared/german-format.ts';
import { formatCents } from '../shared/money.ts';
import { type ModuleCommand, parseCommandArgs as parse, printResult as print, requiredFlag as required } from './command-kit.ts';
import { UsageError } from './io.ts';

// Loaded when a command runs, not when `kontor` starts (commands.ts).
const tax = () => import('../modules/tax/index.ts');

// `kontor export ustva`: the figures of the Umsatzsteuer-Voranmeldung of a month or a
// quarter, from the books; --json lists every document behind every Kennzahl.

export const TAX_COMMANDS: ModuleCommand[] = [
  {
    name: 'export ustva',
    usage: ['kontor export ustva --company ID --period YYYY-MM|YYYY-Qn [--json]   the Umsatzsteuer-Voranmeldung figures from the books'],
    async run(args, io, ctx) {
      const { values } = parse(args, { company: { type: 'string' }, period: { type: 'string' } }, 0);
      const { taxPeriod, TaxPeriodError, ustvaReport } = await tax();
      let period: ReturnType<typeof taxPeriod>;
      try {
        period = taxPeriod(required(values, 'period'));
      } catch (error) {
        if (error instanceof TaxPeriodError) throw new UsageError(`--period: ${error.message}`);
        throw error;
      }
      const companyId = required(values, 'company');
      const exists = await ctx.db.selectFrom('companies').select('id').where('id', '=', companyId).executeTakeFirst();
      if (!exists) {
        io.err(`kontor: no company ${companyId}`);
        return 1;
      }
      const report = await ustvaReport(ctx.db, companyId, period);
      const money = (cents: number) => formatMoney(formatCents(cents));
      const text = [
        `Umsatzsteuer-Voranmeldung ${period.label} (${period.from} bis ${period.to})${report.filed ? ' — abgegeben (Zeitraum gesperrt)' : ''}`,
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
];
