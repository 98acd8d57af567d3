import { AttributionDecisionError, confirmAttribution, rejectAttribution } from '../modules/commissions/index.ts';
import { type ModuleCommand, parseCommandArgs as parse, printResult as print } from './command-kit.ts';

// `kontor admin attribution confirm|reject ID [--json]` (design §2): a person decides on a
// proposed attribution (decide-attribution.ts). --json prints the attribution as the API
// shows it; refusals exit 1 with one sentence.

type Step = 'confirm' | 'reject';

const STEPS: Record<Step, { usage: string; run: typeof confirmAttribution; done: string }> = {
  confirm: { usage: 'confirm a proposed attribution: active from now on', run: confirmAttribution, done: 'confirmed' },
  reject: { usage: 'reject a proposed attribution (an active one is ended with end_date)', run: rejectAttribution, done: 'rejected' },
};

export const ATTRIBUTION_COMMANDS: ModuleCommand[] = (Object.keys(STEPS) as Step[]).map((step) => ({
  name: `admin attribution ${step}`,
  usage: [`kontor admin attribution ${step} ID [--json]   ${STEPS[step].usage}`],
  async run(args, io, ctx) {
    const { positionals, values } = parse(args, {}, 1);
    const id = positionals[0] as string;
    try {
      const { attribution: a, changed } = await STEPS[step].run({ db: ctx.db, clock: ctx.clock }, id);
      const who = `${a.customer_name ?? a.customer_id} to ${a.partner_name ?? a.partner_id} (${a.agreement_name ?? a.agreement_id}) from ${a.start_date}${a.end_date ? ` until ${a.end_date}` : ''}`;
      const text = changed ? `attribution ${a.id} ${STEPS[step].done}: ${who}` : `attribution ${a.id} is ${a.status}; nothing changed`;
      print(io, Boolean(values.json), a, text);
      return 0;
    } catch (error) {
      if (!(error instanceof AttributionDecisionError)) throw error;
      io.err(`kontor: ${error.message}`);
      return 1;
    }
  },
}));
