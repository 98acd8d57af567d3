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
// `kontor admin statement record-invoice ID --number N --date D --net 250.00 --vat 47.50
// --gross 297.50 [--confirm-mismatch] --by EMAIL [--json]` records the partner's invoice for
// a request to invoice (as the statement's page in the app does); `kontor admin partner
// contact ID --by EMAIL [--name N] [--phone P] [--json]` sets the partner's e-invoice contact.

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
      // A send renders the files only when not yet stored: on the server's threads when it carries out the command.
      const deps = { db: ctx.db, clock: ctx.clock, mailer: ctx.mailer, renderStatement: ctx.invoicing?.renderStatement };
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
            .map((s, i) => {
              // A draft the run held back says why (German, for the person who adds what is missing).
              const held = rows[i]?.status === 'draft' && rows[i]?.held_reason ? `\n    held: ${rows[i]?.held_reason}` : '';
              return `${s.id}  ${s.number ?? '(draft)'}  ${s.kind}  ${s.status}${s.paid_at ? ', paid' : ''}  ${formatCents(s.gross_cents)} EUR  ${s.partner_name ?? s.partner_id}  until ${s.period_end}${held}`;
            })
            .join('\n');
    print(io, Boolean(values.json), views, text);
    return 0;
  },
};

const RECORD_INVOICE_COMMAND: ModuleCommand = {
  name: 'admin statement record-invoice',
  usage: [
    "kontor admin statement record-invoice ID --number N --date YYYY-MM-DD --net 250.00 --vat 47.50 --gross 297.50 [--confirm-mismatch] --by EMAIL [--json]   record the partner's invoice for a request to invoice (booked; the statement becomes payable)",
  ],
  async run(args, io, ctx) {
    const { positionals, values } = parse(
      args,
      {
        number: { type: 'string' },
        date: { type: 'string' },
        net: { type: 'string' },
        vat: { type: 'string' },
        gross: { type: 'string' },
        'confirm-mismatch': { type: 'boolean' },
        by: { type: 'string' },
      },
      1,
    );
    const id = positionals[0] as string;
    const by = requiredFlag(values, 'by');
    const input = {
      number: requiredFlag(values, 'number'),
      invoiceDate: requiredFlag(values, 'date'),
      net: requiredFlag(values, 'net'),
      vat: requiredFlag(values, 'vat'),
      gross: requiredFlag(values, 'gross'),
      confirmMismatch: Boolean(values['confirm-mismatch']),
    };
    const { PartnerInvoiceRefused, recordPartnerInvoice } = await import('../modules/statements/index.ts');
    const { Refusal, run } = await import('./app-action-commands.ts');
    return run(io, async () => {
      const actor = await actorOf(ctx, by, id, false);
      if (!actor) throw new Refusal('--by is required');
      try {
        const recorded = await recordPartnerInvoice(ctx, id, input, actor);
        const text = recorded.changed
          ? `statement ${recorded.statementNumber}: invoice ${recorded.number} of ${recorded.invoiceDate} recorded and booked (${formatCents(recorded.grossCents)} EUR${recorded.mismatchConfirmed ? ', difference confirmed' : ''}); payable in a payout run`
          : `statement ${recorded.statementNumber}: invoice ${recorded.number} is recorded already; nothing changed`;
        print(
          io,
          Boolean(values.json),
          {
            statement_id: recorded.statementId,
            statement_number: recorded.statementNumber,
            number: recorded.number,
            invoice_date: recorded.invoiceDate,
            net: formatCents(recorded.netCents),
            vat: formatCents(recorded.vatCents),
            gross: formatCents(recorded.grossCents),
            differences: recorded.differences,
            mismatch_confirmed: recorded.mismatchConfirmed,
            recorded_by: recorded.recordedBy,
            recorded_at: recorded.recordedAt.toISOString(),
            changed: recorded.changed,
          },
          text,
        );
        return 0;
      } catch (error) {
        if (!(error instanceof PartnerInvoiceRefused)) throw error;
        if (error.code === 'not_found') throw new Refusal(`no statement ${id}`);
        const more = error.differences.length > 0 ? `\n  ${error.differences.join('\n  ')}\n  (--confirm-mismatch records it as it is)` : '';
        throw new Refusal(`the invoice was not recorded: ${error.message}${more}`);
      }
    }, []);
  },
};

const PARTNER_CONTACT_COMMAND: ModuleCommand = {
  name: 'admin partner contact',
  usage: [
    "kontor admin partner contact ID --by EMAIL [--name NAME] [--phone PHONE] [--json]   set the partner's contact for its e-invoices (XRechnung needs a telephone); an empty value removes it",
  ],
  async run(args, io, ctx) {
    const { positionals, values } = parse(args, { by: { type: 'string' }, name: { type: 'string' }, phone: { type: 'string' } }, 1);
    const id = positionals[0] as string;
    const by = requiredFlag(values, 'by');
    const { PartnerContactError, partnerContact, setPartnerContact } = await import('../modules/statements/index.ts');
    const { Refusal, actorFor, run } = await import('./app-action-commands.ts');
    return run(io, async () => {
      const partner = await ctx.db.selectFrom('commission_partners').select(['company_id', 'name']).where('id', '=', id).executeTakeFirst();
      if (!partner) throw new Refusal(`no partner ${id}`);
      const actor = await actorFor(ctx, by, partner.company_id, false);
      const current = await partnerContact(ctx.db, partner.company_id, id);
      try {
        const result = await setPartnerContact(
          ctx,
          partner.company_id,
          id,
          {
            contactName: typeof values.name === 'string' ? values.name : current.contactName,
            phone: typeof values.phone === 'string' ? values.phone : current.phone,
          },
          actor,
        );
        print(
          io,
          Boolean(values.json),
          { partner_id: id, contact_name: result.contactName, phone: result.phone, changed: result.changed },
          result.changed
            ? `partner ${id}: e-invoice contact set (${result.contactName ?? partner.name}, ${result.phone ?? 'no telephone'})`
            : `partner ${id}: e-invoice contact unchanged`,
        );
        return 0;
      } catch (error) {
        if (error instanceof PartnerContactError) throw new Refusal(error.message);
        throw error;
      }
    }, []);
  },
};

export const STATEMENT_COMMANDS: ModuleCommand[] = [...STEP_COMMANDS, LIST_COMMAND, RECORD_INVOICE_COMMAND, PARTNER_CONTACT_COMMAND];
