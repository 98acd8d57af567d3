import { formatCents } from '../shared/money.ts';
import { actorFor, Refusal, run } from './app-action-commands.ts';
import { type ModuleCommand, parseCommandArgs as parse, printResult as print, requiredFlag } from './command-kit.ts';

// The dunning page of the app on the command line (design §2):
//   kontor admin dunning failed --company ID [--json]       the notices that did not go out
//   kontor admin dunning retry NOTICE_ID --by EMAIL [--json] send a failed notice again (audit as in the app)

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
];
