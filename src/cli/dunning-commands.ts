import { formatCents } from '../shared/money.ts';
import { actorFor, Refusal, run } from './app-action-commands.ts';
import { type ModuleCommand, parseCommandArgs as parse, printResult as print, requiredFlag } from './command-kit.ts';

// The dunning page of the app on the command line (design §2):
//   kontor admin dunning failed --company ID [--json]       the notices that did not go out
//   kontor admin dunning retry NOTICE_ID --by EMAIL [--json] send a failed notice again (audit as in the app)
//   kontor admin dunning stop (--invoice ID | --customer ID) --reason TEXT --by EMAIL [--json]   set a Mahnsperre (issue 25)
//   kontor admin dunning lift STOP_ID --by EMAIL [--json]   lift it

const LEVELS = ['Zahlungserinnerung', '1. Mahnung', '2. Mahnung', 'Letzte Mahnung'];

export const DUNNING_COMMANDS: ModuleCommand[] = [
  {
    name: 'admin dunning failed',
    usage: ['kontor admin dunning failed --company ID [--json]   the dunning notices that did not go out (failed, or cancelled by a payment), with the reason'],
    async run(args, io, ctx) {
      const { values } = parse(args, { company: { type: 'string' } }, 0);
      const companyId = requiredFlag(values, 'company');
      const { listUnsentNotices } = await import('../modules/dunning/index.ts');
      return run(io, async () => {
        const company = await ctx.db.selectFrom('companies').select('id').where('id', '=', companyId).executeTakeFirst();
        if (!company) throw new Refusal(`no company ${companyId}`);
        const rows = await listUnsentNotices(ctx.db, companyId, ctx.clock.now());
        const list = rows.map((row) => ({
          notice_id: row.id,
          invoice_id: row.invoice_id,
          invoice_number: row.invoice_number,
          invoice_status: row.invoice_status,
          customer: row.customer_name,
          level: row.level,
          total: formatCents(row.total_cents),
          notice_date: row.notice_date,
          deadline: row.deadline,
          status: row.status,
          reason: row.reason,
        }));
        const text =
          list.length === 0
            ? 'no failed dunning notices'
            : list
                .map(
                  (n) =>
                    `${n.notice_id}  ${n.invoice_number ?? n.invoice_id}  ${n.customer}  ${LEVELS[n.level]}  ${n.total} EUR  ${n.notice_date}  ${n.status}: ${n.reason ?? ''}`,
                )
                .join('\n');
        print(io, Boolean(values.json), list, text);
        return 0;
      }, []);
    },
  },
  {
    name: 'admin dunning retry',
    usage: [
      "kontor admin dunning retry NOTICE_ID --by EMAIL [--json]   send a failed dunning notice again, to the customer's e-mail address of now (as the app does)",
    ],
    async run(args, io, ctx) {
      const { positionals, values } = parse(args, { by: { type: 'string' } }, 1);
      const by = requiredFlag(values, 'by');
      const id = positionals[0] as string;
      const { RetryNoticeError, retryNotice } = await import('../modules/dunning/index.ts');
      return run(io, async () => {
        const notice = /^dun_[0-9a-z]{26}$/.test(id)
          ? await ctx.db.selectFrom('dunning_notices').select('company_id').where('id', '=', id).executeTakeFirst()
          : undefined;
        if (!notice) throw new Refusal(`no dunning notice ${id}`);
        const actor = await actorFor(ctx, by, notice.company_id, false);
        const retried = await retryNotice(ctx, notice.company_id, id, actor);
        print(
          io,
          Boolean(values.json),
          {
            notice_id: retried.noticeId,
            invoice_id: retried.invoiceId,
            invoice_number: retried.invoiceNumber,
            level: retried.level,
            status: 'pending',
            email: retried.email,
          },
          `${LEVELS[retried.level]} for ${retried.invoiceNumber} queued to be sent again to ${retried.email}; the worker (or kontor jobs run) mails it`,
        );
        return 0;
      }, [RetryNoticeError]);
    },
  },
  {
    name: 'admin dunning stop',
    usage: [
      'kontor admin dunning stop (--invoice ID | --customer ID) --reason TEXT --by EMAIL [--json]   set a dunning stop (Mahnsperre): no notices for the invoice or all invoices of the customer until lifted',
    ],
    async run(args, io, ctx) {
      const { values } = parse(args, { invoice: { type: 'string' }, customer: { type: 'string' }, reason: { type: 'string' }, by: { type: 'string' } }, 0);
      const by = requiredFlag(values, 'by');
      const reason = requiredFlag(values, 'reason');
      const { DunningActionError, setDunningStop } = await import('../modules/dunning/index.ts');
      return run(io, async () => {
        const invoiceId = values.invoice as string | undefined;
        const customerId = values.customer as string | undefined;
        if (Boolean(invoiceId) === Boolean(customerId)) throw new Refusal('name either --invoice ID or --customer ID');
        const owner = invoiceId
          ? await ctx.db.selectFrom('invoices').select('company_id').where('id', '=', invoiceId).executeTakeFirst()
          : await ctx.db.selectFrom('customers').select('company_id').where('id', '=', customerId!).executeTakeFirst();
        if (!owner) throw new Refusal(invoiceId ? `no invoice ${invoiceId}` : `no customer ${customerId}`);
        const actor = await actorFor(ctx, by, owner.company_id, false);
        const target = invoiceId ? { invoiceId } : { customerId: customerId! };
        const stop = await setDunningStop(ctx, owner.company_id, target, reason, actor);
        const what = invoiceId ? `invoice ${stop.label}` : `all invoices of ${stop.label}`;
        print(
          io,
          Boolean(values.json),
          { stop_id: stop.stopId, created: stop.created, invoice_id: invoiceId ?? null, customer_id: customerId ?? null, cancelled_notices: stop.cancelled },
          stop.created
            ? `dunning stop ${stop.stopId} set for ${what}${stop.cancelled > 0 ? `; ${stop.cancelled} notice(s) not yet mailed cancelled` : ''}`
            : `a dunning stop (${stop.stopId}) holds for ${what} already; nothing changed`,
        );
        return 0;
      }, [DunningActionError]);
    },
  },
  {
    name: 'admin dunning lift',
    usage: ['kontor admin dunning lift STOP_ID --by EMAIL [--json]   lift a dunning stop; the next daily run duns by the usual rules again'],
    async run(args, io, ctx) {
      const { positionals, values } = parse(args, { by: { type: 'string' } }, 1);
      const by = requiredFlag(values, 'by');
      const id = positionals[0] as string;
      const { DunningActionError, liftDunningStop } = await import('../modules/dunning/index.ts');
      return run(io, async () => {
        const stop = /^dst_[0-9a-z]{26}$/.test(id)
          ? await ctx.db.selectFrom('dunning_stops').select('company_id').where('id', '=', id).executeTakeFirst()
          : undefined;
        if (!stop) throw new Refusal(`no dunning stop ${id}`);
        const actor = await actorFor(ctx, by, stop.company_id, false);
        const lifted = await liftDunningStop(ctx, stop.company_id, id, actor);
        print(
          io,
          Boolean(values.json),
          { stop_id: lifted.stopId, lifted: lifted.lifted, invoice_id: lifted.invoiceId, customer_id: lifted.customerId },
          lifted.lifted ? `dunning stop ${lifted.stopId} for ${lifted.label} lifted` : `dunning stop ${lifted.stopId} was lifted already; nothing changed`,
        );
        return 0;
      }, [DunningActionError]);
    },
  },
];
