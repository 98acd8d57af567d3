import { formatDate } from '../shared/german-format.ts';
import { actorFor, Refusal } from './app-action-commands.ts';
import { dateFlag, type ModuleCommand, parseCommandArgs as parse, printResult as print, requiredFlag as required, when } from './command-kit.ts';
import type { CommandIo } from './io.ts';

// Loaded when a command runs, not when `kontor` starts (commands.ts).
const bookkeeping = () => import('../modules/bookkeeping/index.ts');

// `kontor admin period lock|list`: accounting period locks (GoBD "Festschreibung"). A lock
// is final and only moves forward; refusals exit 1 with the reason. --by EMAIL names the
// admin who locks: recorded with the lock and in the audit trail, as in the app.

async function refused(io: CommandIo, error: unknown): Promise<number> {
  if (!(error instanceof (await bookkeeping()).BookkeepingError) && !(error instanceof Refusal)) throw error;
  io.err(`kontor: ${error.message}`);
  return 1;
}

export const PERIOD_COMMANDS: ModuleCommand[] = [
  {
    name: 'admin period lock',
    usage: ['kontor admin period lock --company ID --until YYYY-MM-DD [--by EMAIL] [--json]   final: nothing is booked on or before that day any more'],
    async run(args, io, ctx) {
      const { values } = parse(args, { company: { type: 'string' }, until: { type: 'string' }, by: { type: 'string' } }, 0);
      const until = dateFlag(required(values, 'until'), 'until');
      const companyId = required(values, 'company');
      try {
        const actor = typeof values.by === 'string' && values.by !== '' ? await actorFor(ctx, values.by, companyId, true) : undefined;
        const result = await (await bookkeeping()).lockPeriod(ctx.db, ctx.clock, { companyId, until, ...(actor ? { actor } : {}) });
        const text = result.changed
          ? `the accounting period of ${result.company_id} is locked up to ${formatDate(result.locked_until)}${result.previous_until ? ` (before: ${formatDate(result.previous_until)})` : ''}; corrections go into the open period`
          : `the accounting period of ${result.company_id} was locked up to ${formatDate(result.locked_until)} already; nothing changed`;
        print(io, Boolean(values.json), result, text);
        return 0;
      } catch (error) {
        return await refused(io, error);
      }
    },
  },
  {
    name: 'admin period list',
    usage: ['kontor admin period list --company ID [--json]'],
    async run(args, io, ctx) {
      const { values } = parse(args, { company: { type: 'string' } }, 0);
      try {
        const result = await (await bookkeeping()).listPeriodLocks(ctx.db, required(values, 'company'));
        const text =
          result.locked_until === null
            ? `no accounting period of ${result.company_id} is locked`
            : [
                `locked up to ${formatDate(result.locked_until)}`,
                ...result.history.map(
                  (lock) =>
                    `  ${formatDate(lock.locked_until)}  set ${when(lock.locked_at)}${lock.locked_by ? ` by ${lock.locked_by_email ?? lock.locked_by}` : ''}`,
                ),
              ].join('\n');
        print(io, Boolean(values.json), result, text);
        return 0;
      } catch (error) {
        return await refused(io, error);
      }
    },
  },
];
