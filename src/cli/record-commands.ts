import { formatCents } from '../shared/money.ts';
import { Refusal, run } from './app-action-commands.ts';
import { type CommandContext, type ModuleCommand, parseCommandArgs as parse, printResult as print, requiredFlag } from './command-kit.ts';

// What the app's customer and contract pages show, on the command line (design §2):
//   kontor admin customer show ID --company ID [--json]   master data, open items with totals, credits, contracts
//   kontor admin contract show ID --company ID [--json]   terms, items, billed cycles, billings ahead, open usage
// Read only. Amounts are EUR decimal strings; dates YYYY-MM-DD; "today" is the company's
// calendar day. An id the company does not have is refused (exit 1), like the app's 404.

/** The company's calendar day (its time zone), or a refusal when there is no such company. */
async function companyToday(ctx: CommandContext, companyId: string): Promise<string> {
  const company = await ctx.db.selectFrom('companies').select('timezone').where('id', '=', companyId).executeTakeFirst();
  if (!company) throw new Refusal(`no company ${companyId}`);
  return ctx.clock.today(company.timezone);
}

const eur = (cents: number | bigint) => formatCents(typeof cents === 'bigint' ? cents : BigInt(cents));
const pad = (text: string, width: number) => text.padEnd(width);

export const RECORD_COMMANDS: ModuleCommand[] = [
  {
    name: 'admin customer show',
    usage: ['kontor admin customer show ID --company ID [--json]   a customer: master data, open items with totals, credits, contracts'],
    async run(args, io, ctx) {
      const { positionals, values } = parse(args, { company: { type: 'string' } }, 1);
      const companyId = requiredFlag(values, 'company');
      const id = positionals[0] as string;
      const { customerAccount } = await import('../modules/customers/customer-records.ts');
      const { customerView } = await import('../modules/customers/customer-view.ts');
      return run(io, async () => {
        const day = await companyToday(ctx, companyId);
        const account = await customerAccount(ctx.db, companyId, id, day, 0);
        if (!account) throw new Refusal(`company ${companyId} has no customer ${id}`);
        const c = account.customer;
        const result = {
          customer: customerView(c),
          as_of: day,
          totals: { open: eur(account.openCents), overdue: eur(account.overdueCents), credit: eur(account.creditCents) },
          open_items: account.openItems.map((i) => ({
            invoice_id: i.id,
            number: i.number,
            status: i.status,
            issue_date: i.issue_date,
            due_date: i.due_date,
            total_gross: eur(i.total_gross_cents),
            amount_paid: eur(i.amount_paid_cents),
            open: eur(i.open_cents),
            days_overdue: i.days_overdue,
          })),
          credits: account.credits.map((cr) => ({
            id: cr.id,
            booking_date: cr.booking_date,
            amount: eur(cr.amount_cents),
            invoice_id: cr.invoice_id,
            invoice_number: cr.invoice_number,
            payer_name: cr.payer_name,
            remittance_text: cr.remittance_text,
          })),
          contracts: account.contracts,
        };
        const address = [[c.street, c.house_number].filter(Boolean).join(' '), [c.zip, c.city].filter(Boolean).join(' '), c.country_code]
          .filter(Boolean)
          .join(', ');
        const lines = [
          `customer ${c.kundennummer} ${c.name} (${c.customer_type}, ${c.external_source}/${c.external_ref})`,
          `  ${address || '(no address)'}${c.email ? ` · ${c.email}` : ''}${c.vat_id ? ` · VAT ID ${c.vat_id}` : ''}`,
          `open items as of ${day}:${result.open_items.length === 0 ? ' none' : ''}`,
          ...result.open_items.map(
            (i) =>
              `  ${pad(i.number, 16)} issued ${i.issue_date ?? '-'}  due ${i.due_date ?? '-'}  gross ${i.total_gross}  paid ${i.amount_paid}  open ${i.open}${i.days_overdue > 0 ? `  ${i.days_overdue} day(s) overdue` : ''}`,
          ),
          `total open ${result.totals.open} EUR, overdue ${result.totals.overdue} EUR`,
          `credit ${result.totals.credit} EUR${result.credits.length ? ':' : ''}`,
          ...result.credits.map(
            (cr) => `  ${cr.booking_date}  ${cr.amount}  from the payment of ${cr.invoice_number ?? cr.invoice_id}${cr.payer_name ? `  ${cr.payer_name}` : ''}`,
          ),
          `contracts:${result.contracts.length === 0 ? ' none' : ''}`,
          ...result.contracts.map((k) => `  ${k.number}  ${k.name}  ${k.status}  ${k.billing_interval}  next billing ${k.next_billing_date ?? '-'}`),
        ];
        print(io, Boolean(values.json), result, lines.join('\n'));
        return 0;
      }, []);
    },
  },
  {
    name: 'admin contract show',
    usage: ['kontor admin contract show ID --company ID [--json]   a contract: terms, items, billed cycles, billings ahead, open usage'],
    async run(args, io, ctx) {
      const { positionals, values } = parse(args, { company: { type: 'string' } }, 1);
      const companyId = requiredFlag(values, 'company');
      const id = positionals[0] as string;
      const { contractRecord } = await import('../modules/contracts/contract-records.ts');
      return run(io, async () => {
        await companyToday(ctx, companyId);
        const record = await contractRecord(ctx.db, companyId, id);
        if (!record) throw new Refusal(`company ${companyId} has no contract ${id}`);
        const k = record.contract;
        const result = {
          id: k.id,
          number: k.number,
          name: k.name,
          status: k.status,
          customer: record.customer,
          external_source: k.external_source,
          external_ref: k.external_ref,
          billing_interval: k.billing_interval,
          start_date: k.start_date,
          billing_starts_on: k.billing_starts_on,
          end_date: k.end_date,
          invoice_mode: k.invoice_mode,
          payment_terms_days: k.payment_terms_days,
          next_billing_date: k.next_billing_date,
          usage_open_from: k.usage_open_from,
          pauses: k.pauses,
          items: record.items.map((item) => ({
            ref: item.ref,
            position: item.position,
            product_number: item.product_number ?? null,
            description: item.description,
            quantity: item.quantity,
            unit: item.unit,
            billing_timing: item.billing_timing,
            unit_price_net: item.unit_price_net,
            vat_rate: item.vat_rate,
            pricing_model: item.pricing_model,
            included_quantity: item.included_quantity,
            overage_price: item.overage_price,
            tiers: item.tiers,
            starts_on: item.starts_on,
            ends_after: item.ends_after,
            billed_until: item.billed_until,
          })),
          cycles: record.cycles.map((y) => ({
            billing_date: y.billing_date,
            start: y.start_date,
            end: y.end_date,
            status: y.status,
            invoice_id: y.invoice_id,
            invoice_number: y.invoice_number,
            invoice_status: y.invoice_status,
            total_net: y.total_net,
            invoice_total_gross: y.invoice_gross_cents === null ? null : eur(y.invoice_gross_cents),
            reason: y.reason,
            attempts: y.attempts,
          })),
          upcoming: record.upcoming,
          usage: record.usage
            ? {
                from: record.usage.from,
                to: record.usage.to,
                items: record.usage.sums.map((s) => ({ item_ref: s.item_ref, quantity: s.quantity, records: s.records })),
              }
            : null,
        };
        const lines = [
          `contract ${k.number} ${k.name} (${k.status}) for ${record.customer.name} (${record.customer.kundennummer})`,
          `  ${k.billing_interval}ly from ${k.start_date}${k.billing_starts_on ? `, billed from ${k.billing_starts_on}` : ''}, ${k.end_date ? `ends ${k.end_date}` : 'open-ended'}; invoices: ${k.invoice_mode}; next billing ${k.next_billing_date ?? '-'}`,
          'items:',
          ...result.items.map(
            (item) =>
              `  ${item.position}. ${item.description} (${item.ref})  ${item.billing_timing}  ${item.pricing_model}  ${item.quantity} × ${item.unit_price_net}  VAT ${item.vat_rate} %${item.ends_after ? `  until ${item.ends_after}` : ''}`,
          ),
          `billed cycles:${result.cycles.length === 0 ? ' none' : ''}`,
          ...result.cycles.map(
            (y) =>
              `  ${y.start} – ${y.end}  billed ${y.billing_date}  ${y.status}${y.invoice_number ? `  ${y.invoice_number} (${y.invoice_status})` : ''}${y.total_net !== null ? `  net ${y.total_net}` : ''}${y.reason ? `  ${y.reason}` : ''}`,
          ),
          `billings ahead:${result.upcoming.length === 0 ? ' none' : ''}`,
          ...result.upcoming.map(
            (u) =>
              `  ${u.billing_date}  ${u.start} – ${u.end}  expected net ${u.expected_net ?? '-'}${u.plus_usage ? ' plus usage' : ''}${u.final ? '  (final)' : ''}${u.paused ? '  (paused)' : ''}`,
          ),
          ...(result.usage
            ? [
                `usage since ${result.usage.from}${result.usage.to ? ` up to ${result.usage.to}` : ''}:`,
                ...result.usage.items.map((u) => `  ${u.item_ref}  ${u.quantity} (${u.records} record(s))`),
              ]
            : []),
        ];
        print(io, Boolean(values.json), result, lines.join('\n'));
        return 0;
      }, []);
    },
  },
];
