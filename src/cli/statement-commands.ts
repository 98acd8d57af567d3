import { formatCents } from '../shared/money.ts';
import { type CommandContext, type ModuleCommand, parseCommandArgs as parse, printResult as print, requiredFlag } from './command-kit.ts';
import { UsageError } from './io.ts';

// `kontor admin statement issue|send|cancel|objection|mark-paid ID [--by EMAIL] [--json]`
// (design §2): the person-side steps of a revenue-share statement. --json prints the
// statement as the API shows it (with `cancellation` after a cancel); refusals exit 1 with
// one sentence. --by names the person acting (an active member with access to the
// statement's company; mark-paid needs an admin, as in the app): the step is recorded in the
// audit trail as the app records it. Without --by the step is recorded as done by `cli`.
// `kontor admin statement list --company ID [--status S] [--json]` lists a company's
// statements, newest first.

type Step = 'issue' | 'send' | 'cancel' | 'objection' | 'mark-paid';

const USAGE: Record<Step, string> = {
  issue: 'issue a draft statement: number, booking, PDF, mail',
  send: 'mail an issued statement to the partner (once)',
  cancel: 'cancel a statement (a cancelling statement; its entries are open again)',
  objection: "record the partner's objection to a Gutschrift",
  'mark-paid': 'mark a statement paid (its entries paid; with --by an admin)',
};

const STATUSES = ['draft', 'issued', 'sent', 'cancelled', 'objected', 'unpaid', 'paid'] as const;

/** The person --by names, in the statement's company (null without --by). */
async function actorOf(ctx: CommandContext, by: string | undefined, statementId: string, adminOnly: boolean) {
  if (by === undefined) return null;
  const { actorFor, Refusal } = await import('./app-action-commands.ts');
  const row = await ctx.db.selectFrom('commission_statements').select('company_id').where('id', '=', statementId).executeTakeFirst();
  if (!row) throw new Refusal(`no statement ${statementId}`);
  return actorFor(ctx, by, row.company_id, adminOnly);
}

const STEP_COMMANDS: ModuleCommand[] = (Object.keys(USAGE) as Step[]).map((step) => ({
  name: `admin statement ${step}`,
  usage: [`kontor admin statement ${step} ID [--by EMAIL] [--json]   ${USAGE[step]}`],
  async run(args, io, ctx) {
    const { positionals, values } = parse(args, { by: { type: 'string' } }, 1);
    const id = positionals[0] as string;
    const by = typeof values.by === 'string' ? values.by : undefined;
    if (values.by !== undefined && !by) throw new UsageError('--by needs an e-mail address');
    const statements = await import('../modules/statements/index.ts');
    const { Refusal } = await import('./app-action-commands.ts');
    try {
      const actor = await actorOf(ctx, by, id, step === 'mark-paid');
      const who = actor ? actor.email : 'cli';
      const deps = { db: ctx.db, clock: ctx.clock, mailer: ctx.mailer };
      if (step === 'send' && !deps.mailer && ctx.dataDir) {
        const { createMailer } = await import('../modules/mail/index.ts');
        deps.mailer = createMailer({ dataDir: ctx.dataDir, sealer: ctx.sealer });
      }
      const acting = actor ?? undefined;
      const result =
        step === 'issue'
          ? await statements.issueDraftStatement(deps, id, who, acting)
          : step === 'send'
            ? await statements.sendStatement(deps, id, acting)
            : step === 'cancel'
              ? await statements.cancelStatement(deps, id, who, acting)
              : step === 'objection'
                ? await statements.objectToStatement(deps, id, who, acting)
                : await statements.markStatementPaid(deps, id, who, acting);
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
      if (!(error instanceof statements.StatementError) && !(error instanceof Refusal)) throw error;
      io.err(`kontor: ${error.message}`);
      return 1;
    }
  },
}));

const LIST_COMMAND: ModuleCommand = {
  name: 'admin statement list',
  usage: [
    `kontor admin statement list --company ID [--status ${STATUSES.join('|')}] [--json]   a company's statements, newest first (--json: as the API shows them)`,
  ],
  async run(args, io, ctx) {
    const { values } = parse(args, { company: { type: 'string' }, status: { type: 'string' } }, 0);
    const companyId = requiredFlag(values, 'company');
    const status = values.status === undefined ? null : STATUSES.find((s) => s === values.status);
    if (status === undefined) throw new UsageError(`--status must be one of ${STATUSES.join(', ')}, got ${String(values.status)}`);
    const company = await ctx.db.selectFrom('companies').select('id').where('id', '=', companyId).executeTakeFirst();
    if (!company) {
      io.err(`kontor: no company ${companyId}`);
      return 1;
    }
    let query = ctx.db.selectFrom('commission_statements').selectAll().where('company_id', '=', companyId);
    if (status === 'paid') query = query.where('paid_at', 'is not', null);
    else if (status === 'unpaid') query = query.where('paid_at', 'is', null).where('type', '=', 'statement').where('status', 'in', ['issued', 'sent']);
    else if (status !== null) query = query.where('status', '=', status);
    const rows = await query.orderBy('seq', 'desc').execute();
    const { viewsOf } = await import('../modules/statements/statements.repository.ts');
    const views = await viewsOf(ctx.db, companyId, rows);
    const text =
      views.length === 0
        ? 'no statements'
        : views
            .map(
              (s) =>
                `${s.id}  ${s.number ?? '(draft)'}  ${s.kind}  ${s.status}${s.paid_at ? ', paid' : ''}  ${formatCents(s.gross_cents)} EUR  ${s.partner_name ?? s.partner_id}  until ${s.period_end}`,
            )
            .join('\n');
    print(io, Boolean(values.json), views, text);
    return 0;
  },
};

export const STATEMENT_COMMANDS: ModuleCommand[] = [...STEP_COMMANDS, LIST_COMMAND];
