import { formatCents } from '../shared/money.ts';
import { type ModuleCommand, parseCommandArgs as parse, printResult as print } from './command-kit.ts';
import type { CommandIo } from './io.ts';

// `kontor admin statement issue|send|cancel|objection|mark-paid ID [--json]` (design §2):
// the person-side steps of a revenue-share statement. --json prints the statement as the
// API shows it (with `cancellation` after a cancel); refusals exit 1 with one sentence.

type Step = 'issue' | 'send' | 'cancel' | 'objection' | 'mark-paid';

const USAGE: Record<Step, string> = {
  issue: 'issue a draft statement: number, booking, PDF, mail',
  send: 'mail an issued statement to the partner (once)',
  cancel: 'cancel a statement (a cancelling statement; its entries are open again)',
  objection: "record the partner's objection to a Gutschrift",
  'mark-paid': 'mark a statement paid (its entries paid)',
};

function refused(io: CommandIo, error: unknown, known: new (...args: never[]) => Error): number {
  if (!(error instanceof known)) throw error;
  io.err(`kontor: ${error.message}`);
  return 1;
}

export const STATEMENT_COMMANDS: ModuleCommand[] = (Object.keys(USAGE) as Step[]).map((step) => ({
  name: `admin statement ${step}`,
  usage: [`kontor admin statement ${step} ID [--json]   ${USAGE[step]}`],
  async run(args, io, ctx) {
    const { positionals, values } = parse(args, {}, 1);
    const id = positionals[0] as string;
    const statements = await import('../modules/statements/index.ts');
    try {
      const deps = { db: ctx.db, clock: ctx.clock, mailer: ctx.mailer };
      if (step === 'send' && !deps.mailer && ctx.dataDir) {
        const { createMailer } = await import('../modules/mail/index.ts');
        deps.mailer = createMailer({ dataDir: ctx.dataDir, sealer: ctx.sealer });
      }
      const result =
        step === 'issue'
          ? await statements.issueDraftStatement(deps, id)
          : step === 'send'
            ? await statements.sendStatement(deps, id)
            : step === 'cancel'
              ? await statements.cancelStatement(deps, id)
              : step === 'objection'
                ? await statements.objectToStatement(deps, id)
                : await statements.markStatementPaid(deps, id);
      const s = result.statement;
      const name = s.number ?? s.id;
      const text = !result.changed
        ? `statement ${name} is ${s.status}${s.paid_at ? ', paid' : ''}; nothing changed`
        : step === 'cancel' && result.cancellation
          ? `statement ${name} cancelled by ${result.cancellation.number} (${formatCents(result.cancellation.gross_cents)} EUR); its entries are open again`
          : `statement ${name} ${step === 'mark-paid' ? 'paid' : s.status} (${formatCents(s.gross_cents)} EUR, ${s.partner_name})`;
      print(io, Boolean(values.json), result.cancellation ? { ...s, cancellation: result.cancellation } : s, text);
      return 0;
    } catch (error) {
      return refused(io, error, statements.StatementError);
    }
  },
}));
