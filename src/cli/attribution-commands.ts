import type { AttributionView } from '../modules/commissions/index.ts';
import { type ModuleCommand, parseCommandArgs as parse, printResult as print, requiredFlag } from './command-kit.ts';
import { UsageError } from './io.ts';

// Loaded when a command runs, not when `kontor` starts (commands.ts).
const commissions = () => import('../modules/commissions/index.ts');

// `kontor admin attribution confirm|reject ID [--by EMAIL] [--json]` (design §2): a person
// decides on a proposed attribution (decide-attribution.ts). --json prints the attribution
// as the API shows it; refusals exit 1 with one sentence. --by names the person deciding (an
// active member with access to the attribution's company), recorded in the audit trail as
// in the app; without --by the decision is recorded as made by `cli`.
// `kontor admin attribution list --company ID [--json]` lists the proposed attributions
// waiting for a person, oldest first.

type Step = 'confirm' | 'reject';

const STEPS: Record<Step, { usage: string; done: string }> = {
  confirm: { usage: 'confirm a proposed attribution: active from now on', done: 'confirmed' },
  reject: { usage: 'reject a proposed attribution (an active one is ended with end_date)', done: 'rejected' },
};

const describe = (a: AttributionView) =>
  `${a.customer_name ?? a.customer_id} to ${a.partner_name ?? a.partner_id} (${a.agreement_name ?? a.agreement_id}) from ${a.start_date}${a.end_date ? ` until ${a.end_date}` : ''}`;

const STEP_COMMANDS: ModuleCommand[] = (Object.keys(STEPS) as Step[]).map((step) => ({
  name: `admin attribution ${step}`,
  usage: [`kontor admin attribution ${step} ID [--by EMAIL] [--json]   ${STEPS[step].usage}`],
  async run(args, io, ctx) {
    const { positionals, values } = parse(args, { by: { type: 'string' } }, 1);
    const id = positionals[0] as string;
    const by = typeof values.by === 'string' ? values.by : undefined;
    if (values.by !== undefined && !by) throw new UsageError('--by needs an e-mail address');
    const { actorFor, Refusal } = await import('./app-action-commands.ts');
    try {
      let actor: Awaited<ReturnType<typeof actorFor>> | undefined;
      if (by !== undefined) {
        const row = await ctx.db.selectFrom('commission_attributions').select('company_id').where('id', '=', id).executeTakeFirst();
        if (!row) throw new (await commissions()).AttributionDecisionError(`no attribution ${id}`, 'not_found');
        actor = await actorFor(ctx, by, row.company_id, false);
      }
      const { attribution: a, changed } = await (step === 'confirm' ? (await commissions()).confirmAttribution : (await commissions()).rejectAttribution)(
        { db: ctx.db, clock: ctx.clock },
        id,
        actor?.email ?? 'cli',
        actor,
      );
      const text = changed ? `attribution ${a.id} ${STEPS[step].done}: ${describe(a)}` : `attribution ${a.id} is ${a.status}; nothing changed`;
      print(io, Boolean(values.json), a, text);
      return 0;
    } catch (error) {
      if (!(error instanceof (await commissions()).AttributionDecisionError) && !(error instanceof Refusal)) throw error;
      io.err(`kontor: ${error.message}`);
      return 1;
    }
  },
}));

const LIST_COMMAND: ModuleCommand = {
  name: 'admin attribution list',
  usage: ['kontor admin attribution list --company ID [--json]   the proposed attributions waiting for a person, oldest first'],
  async run(args, io, ctx) {
    const { values } = parse(args, { company: { type: 'string' } }, 0);
    const companyId = requiredFlag(values, 'company');
    const company = await ctx.db.selectFrom('companies').select('timezone').where('id', '=', companyId).executeTakeFirst();
    if (!company) {
      io.err(`kontor: no company ${companyId}`);
      return 1;
    }
    const rows = await ctx.db
      .selectFrom('commission_attributions as a')
      .innerJoin('commission_agreements as g', (join) => join.onRef('g.company_id', '=', 'a.company_id').onRef('g.id', '=', 'a.agreement_id'))
      .innerJoin('commission_partners as p', (join) => join.onRef('p.company_id', '=', 'a.company_id').onRef('p.id', '=', 'a.partner_id'))
      .innerJoin('customers as c', (join) => join.onRef('c.company_id', '=', 'a.company_id').onRef('c.id', '=', 'a.customer_id'))
      .selectAll('a')
      .select(['g.name as agreement_name', 'p.name as partner_name', 'c.name as customer_name'])
      .where('a.company_id', '=', companyId)
      .where('a.status', '=', 'proposed')
      .orderBy('a.created_at')
      .orderBy('a.id')
      .execute();
    const today = ctx.clock.today(company.timezone);
    const { attributionView } = await commissions();
    const views = rows.map(({ agreement_name, partner_name, customer_name, ...row }) =>
      attributionView({ row, agreementName: agreement_name, partnerName: partner_name, customerName: customer_name }, today),
    );
    const text =
      views.length === 0
        ? 'no attributions waiting for confirmation'
        : views.map((a) => `${a.id}  ${describe(a)}${a.conflicts_with_id ? `  (conflicts with ${a.conflicts_with_id})` : ''}`).join('\n');
    print(io, Boolean(values.json), views, text);
    return 0;
  },
};

export const ATTRIBUTION_COMMANDS: ModuleCommand[] = [...STEP_COMMANDS, LIST_COMMAND];
