import path from 'node:path';
import { localLiveness } from '../db/liveness.ts';
import type { Actor } from '../modules/audit/audit-log.ts';
import { formatCents } from '../shared/money.ts';
import { type CommandContext, dateFlag, type ModuleCommand, parseCommandArgs as parse, printResult as print, requiredFlag } from './command-kit.ts';
import type { CommandIo } from './io.ts';

// The back-office app's actions on the command line (design §2: every person-side action is
// also reachable with --json). Each names the person it acts for (--by EMAIL): an active
// member with access to the company, recorded in the audit trail as in the app.
//   kontor admin invoice issue ID --by EMAIL [--confirm-domestic-supply] [--json]
//   kontor admin partner payout-account ID --by EMAIL (--iban IBAN [--bic BIC] | --remove) [--json]
//   kontor admin payout run --company ID --statements ID,ID --execution-date DATE --out FILE --by EMAIL [--json]
//   kontor admin payout file RUN_ID --out FILE --by EMAIL [--json]
//   kontor admin user invite EMAIL --company ID[,ID] [--role member|admin] --by EMAIL [--json]
//   kontor bank unassigned --company ID [--json]
//   kontor bank assign ENTRY_ID POSITION INVOICE_NUMBER --company ID --by EMAIL [--json]

export class Refusal extends Error {}

/** The person --by names, acting in the company: an active member with access to it. */
export async function actorFor(ctx: CommandContext, email: string, companyId: string, adminOnly: boolean): Promise<Actor & { email: string }> {
  const row = await ctx.db
    .selectFrom('users as u')
    .innerJoin('company_access as a', 'a.user_id', 'u.id')
    .innerJoin('companies as c', 'c.id', 'a.company_id')
    .innerJoin('memberships as m', (join) => join.onRef('m.user_id', '=', 'u.id').onRef('m.organization_id', '=', 'c.organization_id'))
    .select(['u.id', 'u.email', 'c.organization_id', 'm.role'])
    .where('u.email', '=', email.trim().toLowerCase())
    .where('a.company_id', '=', companyId)
    .where('m.active', '=', true)
    .executeTakeFirst();
  if (!row) throw new Refusal(`${email} is no active member with access to company ${companyId}`);
  if (adminOnly && row.role !== 'admin') throw new Refusal(`${email} is not an admin; this needs the admin role`);
  return { userId: row.id, organizationId: row.organization_id, companyId, email: row.email };
}

export async function run(io: CommandIo, work: () => Promise<number>, known: (new (...args: never[]) => Error)[]): Promise<number> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof Refusal || known.some((k) => error instanceof k)) {
      io.err(`kontor: ${(error as Error).message}`);
      return 1;
    }
    throw error;
  }
}

export const APP_ACTION_COMMANDS: ModuleCommand[] = [
  {
    name: 'admin invoice issue',
    usage: [
      'kontor admin invoice issue ID --by EMAIL [--confirm-domestic-supply] [--json]   issue a draft (as the app does; confirm the VAT warning of a customer abroad)',
    ],
    async run(args, io, ctx) {
      const { positionals, values } = parse(args, { by: { type: 'string' }, 'confirm-domestic-supply': { type: 'boolean' } }, 1);
      const by = requiredFlag(values, 'by');
      const id = positionals[0] as string;
      const { AppError } = await import('../shared/errors.ts');
      return run(io, async () => {
        const invoice = await ctx.db.selectFrom('invoices').select('company_id').where('id', '=', id).executeTakeFirst();
        if (!invoice) throw new Refusal(`no invoice ${id}`);
        const actor = await actorFor(ctx, by, invoice.company_id, false);
        const { issueDraft } = await import('../modules/invoicing/issue-draft.ts');
        const { invoicingOutside } = await import('../modules/invoicing/outside.ts');
        const own = ctx.invoicing ? null : invoicingOutside({ dataDir: ctx.dataDir ?? ctx.cwd, sealer: ctx.sealer, renderThreads: 0 });
        try {
          const outside = ctx.invoicing ?? { ...(own as NonNullable<typeof own>), liveness: ctx.liveness ?? localLiveness() };
          const view = await issueDraft({ ...outside, db: ctx.db, clock: ctx.clock }, invoice.company_id, id, {
            confirmDomesticSupply: Boolean(values['confirm-domestic-supply']),
            actor,
          });
          print(io, Boolean(values.json), view, `invoice ${view.number} issued (${view.total_gross} EUR)`);
          return 0;
        } catch (error) {
          if (error instanceof AppError && error.code === 'invoice_not_issuable') {
            const messages = (error.fields.messages as string[] | undefined) ?? [error.message];
            throw new Refusal(`the invoice was not issued: ${messages.join(' ')}`);
          }
          throw error;
        } finally {
          await own?.close();
        }
      }, []);
    },
  },
  {
    name: 'admin partner payout-account',
    usage: ["kontor admin partner payout-account ID --by EMAIL (--iban IBAN [--bic BIC] | --remove) [--json]   set a partner's payout account (admin)"],
    async run(args, io, ctx) {
      const { positionals, values } = parse(
        args,
        { by: { type: 'string' }, iban: { type: 'string' }, bic: { type: 'string' }, remove: { type: 'boolean' } },
        1,
      );
      const by = requiredFlag(values, 'by');
      const iban = values.remove ? null : requiredFlag(values, 'iban');
      const id = positionals[0] as string;
      const { PayoutAccountError, setPayoutAccount } = await import('../modules/commissions/index.ts');
      return run(io, async () => {
        const partner = await ctx.db.selectFrom('commission_partners').select('company_id').where('id', '=', id).executeTakeFirst();
        if (!partner) throw new Refusal(`no partner ${id}`);
        const actor = await actorFor(ctx, by, partner.company_id, true);
        const result = await setPayoutAccount(ctx, partner.company_id, id, { iban, bic: typeof values.bic === 'string' ? values.bic : null }, actor);
        const text = !result.changed
          ? `partner ${id}: payout account unchanged`
          : result.ibanMasked
            ? `partner ${id}: payout account ${result.ibanMasked} set; the company is notified`
            : `partner ${id}: payout account removed; the company is notified`;
        print(io, Boolean(values.json), { partner_id: id, iban_masked: result.ibanMasked, bic: result.bic, changed: result.changed }, text);
        return 0;
      }, [PayoutAccountError]);
    },
  },
  {
    name: 'admin payout run',
    usage: [
      'kontor admin payout run --company ID --statements ID,ID --execution-date DATE --out FILE --by EMAIL [--json]   mark statements paid and write the SEPA file (pain.001.001.09) (admin)',
    ],
    async run(args, io, ctx) {
      const { values } = parse(
        args,
        { company: { type: 'string' }, statements: { type: 'string' }, 'execution-date': { type: 'string' }, out: { type: 'string' }, by: { type: 'string' } },
        0,
      );
      const companyId = requiredFlag(values, 'company');
      const statementIds = requiredFlag(values, 'statements')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      const executionDate = dateFlag(requiredFlag(values, 'execution-date'), 'execution-date');
      const out = path.resolve(ctx.cwd, requiredFlag(values, 'out'));
      const by = requiredFlag(values, 'by');
      const { PayoutRunError, runPayout } = await import('../modules/payouts/payout-run.ts');
      const { writeFileAtomically } = await import('../modules/payouts/payout-file.ts');
      const { pauseAt } = await import('../shared/pause-at.ts');
      return run(io, async () => {
        const actor = await actorFor(ctx, by, companyId, true);
        const result = await runPayout(ctx, companyId, { statementIds, executionDate }, actor);
        // The run is committed and its file kept in the database: a crash from here on leaves
        // FILE missing (never partial); `kontor admin payout file RUN_ID --out FILE` writes it again.
        await pauseAt('payout-file.after-commit');
        await writeFileAtomically(out, result.file);
        print(
          io,
          Boolean(values.json),
          { run_id: result.runId, message_id: result.messageId, payments: result.count, total: formatCents(result.totalCents), file: out },
          `payout run ${result.runId}: ${result.count} transfer(s), ${formatCents(result.totalCents)} EUR, written to ${out}`,
        );
        return 0;
      }, [PayoutRunError]);
    },
  },
  {
    name: 'admin payout file',
    usage: [
      'kontor admin payout file RUN_ID --out FILE --by EMAIL [--json]   write the stored SEPA file of an earlier payout run again, byte for byte (admin)',
    ],
    async run(args, io, ctx) {
      const { positionals, values } = parse(args, { out: { type: 'string' }, by: { type: 'string' } }, 1);
      const runId = positionals[0] as string;
      const out = path.resolve(ctx.cwd, requiredFlag(values, 'out'));
      const by = requiredFlag(values, 'by');
      const { storedPayoutFile, writeFileAtomically } = await import('../modules/payouts/payout-file.ts');
      return run(io, async () => {
        const stored = await storedPayoutFile(ctx.db, runId);
        if (!stored) throw new Refusal(`no payout run ${runId}`);
        await actorFor(ctx, by, stored.companyId, true);
        await writeFileAtomically(out, stored.file);
        print(
          io,
          Boolean(values.json),
          {
            run_id: stored.runId,
            message_id: stored.messageId,
            execution_date: stored.executionDate,
            payments: stored.paymentCount,
            total: formatCents(stored.totalCents),
            file: out,
          },
          `payout run ${stored.runId} (${stored.messageId}): ${stored.paymentCount} transfer(s), ${formatCents(stored.totalCents)} EUR, written to ${out}`,
        );
        return 0;
      }, []);
    },
  },
  {
    name: 'admin user invite',
    usage: [
      'kontor admin user invite EMAIL --company ID[,ID] [--role member|admin] --by EMAIL [--json]   invite a person (prints a one-time password, once) (admin)',
    ],
    async run(args, io, ctx) {
      const { positionals, values } = parse(args, { company: { type: 'string' }, role: { type: 'string' }, by: { type: 'string' } }, 1);
      const companyIds = requiredFlag(values, 'company')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      const by = requiredFlag(values, 'by');
      const { invitePerson, PeopleError } = await import('../modules/access/people.ts');
      return run(io, async () => {
        const actor = await actorFor(ctx, by, companyIds[0] as string, true);
        const invited = await invitePerson(ctx, actor, {
          email: positionals[0] as string,
          role: typeof values.role === 'string' ? values.role : 'member',
          companyIds,
        });
        print(
          io,
          Boolean(values.json),
          { user_id: invited.userId, email: invited.email, role: invited.role, one_time_password: invited.oneTimePassword },
          invited.oneTimePassword
            ? `${invited.email} invited as ${invited.role}; one-time password (shown once): ${invited.oneTimePassword}`
            : `${invited.email} invited as ${invited.role}; they sign in with their existing password`,
        );
        return 0;
      }, [PeopleError]);
    },
  },
  {
    name: 'bank unassigned',
    usage: ['kontor bank unassigned --company ID [--json]   the credits and debits left to assign by hand'],
    async run(args, io, ctx) {
      const { values } = parse(args, { company: { type: 'string' } }, 0);
      const companyId = requiredFlag(values, 'company');
      const rows = await ctx.db
        .selectFrom('bank_transactions as t')
        .innerJoin('bank_entries as e', (join) => join.onRef('e.company_id', '=', 't.company_id').onRef('e.id', '=', 't.entry_id'))
        .select(['t.entry_id', 't.position', 't.unassigned_cents', 't.payer_name', 't.remittance_text', 't.note', 'e.booking_date', 'e.direction'])
        .where('t.company_id', '=', companyId)
        .where('t.status', '=', 'unmatched')
        .orderBy('e.booking_date')
        .orderBy('e.statement_id')
        .orderBy('e.position')
        .orderBy('t.position')
        .execute();
      // A debit (issue 24): a refund or return not taken back from an invoice in full; `note` says why.
      const list = rows.map((r) => ({
        entry_id: r.entry_id,
        position: r.position,
        booking_date: r.booking_date,
        direction: r.direction,
        amount: formatCents(r.unassigned_cents),
        payer_name: r.payer_name,
        remittance_text: r.remittance_text,
        note: r.note,
      }));
      const text =
        list.length === 0
          ? 'no credits or debits left to assign'
          : list
              .map(
                (c) =>
                  `${c.entry_id} ${c.position}  ${c.booking_date}  ${c.direction === 'debit' ? '-' : ''}${c.amount} EUR  ${c.payer_name ?? '(no name)'}  "${c.remittance_text ?? ''}"${c.direction === 'debit' ? `  (${c.note ?? 'debit'})` : ''}`,
              )
              .join('\n');
      print(io, Boolean(values.json), list, text);
      return 0;
    },
  },
  {
    name: 'bank assign',
    usage: [
      'kontor bank assign ENTRY_ID POSITION INVOICE_NUMBER --company ID --by EMAIL [--json]   assign a credit to an open invoice by hand (booked like a match), or a debit to the invoice it takes money back from',
    ],
    async run(args, io, ctx) {
      const { positionals, values } = parse(args, { company: { type: 'string' }, by: { type: 'string' } }, 3);
      const companyId = requiredFlag(values, 'company');
      const by = requiredFlag(values, 'by');
      const [entryId, positionText, invoiceNumber] = positionals as [string, string, string];
      const position = Number(positionText);
      if (!Number.isInteger(position) || position < 1)
        throw new (await import('./io.ts')).UsageError(`POSITION must be a whole number ≥ 1, got ${positionText}`);
      const { AssignCreditError } = await import('../modules/payments/assign-credit.ts');
      const { assignBankTransaction } = await import('../modules/payments/assign-bank-transaction.ts');
      return run(io, async () => {
        const actor = await actorFor(ctx, by, companyId, false);
        const result = await assignBankTransaction(ctx, companyId, { entryId, position }, invoiceNumber, actor);
        if (result.direction === 'debit') {
          print(
            io,
            Boolean(values.json),
            {
              reversal_id: result.reversalId,
              invoice_number: result.invoiceNumber,
              amount: formatCents(result.invoiceCents),
              credit: formatCents(result.creditCents),
              left: formatCents(result.leftCents),
              invoice_status: result.statusAfter,
            },
            `${formatCents(result.invoiceCents + result.creditCents)} EUR taken back from ${result.invoiceNumber} (${formatCents(result.invoiceCents)} of its payment, ${formatCents(result.creditCents)} of the customer credit; now ${result.statusAfter}); ${formatCents(result.leftCents)} EUR of the debit left`,
          );
          return 0;
        }
        print(
          io,
          Boolean(values.json),
          {
            allocation_id: result.allocationId,
            invoice_number: result.invoiceNumber,
            amount: formatCents(result.amountCents),
            left: formatCents(result.leftCents),
            invoice_paid: result.invoicePaid,
          },
          `${formatCents(result.amountCents)} EUR assigned to ${result.invoiceNumber}${result.invoicePaid ? ' (now paid)' : ''}; ${formatCents(result.leftCents)} EUR of the credit left`,
        );
        return 0;
      }, [AssignCreditError]);
    },
  },
];
