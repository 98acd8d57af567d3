import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { localLiveness } from '../db/liveness.ts';
import type { InvoicingDeps } from '../modules/invoicing/index.ts';
import { actorFor, Refusal, run } from './app-action-commands.ts';
import { type CommandContext, type ModuleCommand, parseCommandArgs as parse, printResult as print, requiredFlag } from './command-kit.ts';

// The app's invoice steps on the command line (design §2), for the person --by names (an
// active member with access to the company; members do this daily work), audited as in the app:
//   kontor admin invoice draft --company ID --file JSON_FILE --by EMAIL [--json]
//   kontor admin invoice send ID --by EMAIL [--resend] [--json]
//   kontor admin invoice cancel ID --by EMAIL [--json]
// The draft file has the body of POST /invoices (without issue, send and attribution; the
// external_ref is optional, a note may be added); the draft is written in the app's name, so
// the API does not see it (migration 0026). `kontor admin invoice issue` issues it.
// --json prints the invoice as the API shape shows it; a refusal exits 1 with one sentence.

/** The invoicing deps: the server's when it carries out the command, else made here (and closed). */
async function withInvoicing<T>(ctx: CommandContext, work: (deps: InvoicingDeps) => Promise<T>): Promise<T> {
  const { invoicingOutside } = await import('../modules/invoicing/outside.ts');
  const own = ctx.invoicing
    ? null
    : invoicingOutside({ dataDir: ctx.dataDir ?? ctx.cwd, sealer: ctx.sealer, renderThreads: 0, ...(ctx.mailer ? { mailer: ctx.mailer } : {}) });
  try {
    const outside = ctx.invoicing ?? { ...(own as NonNullable<typeof own>), liveness: ctx.liveness ?? localLiveness() };
    return await work({ ...outside, db: ctx.db, clock: ctx.clock });
  } finally {
    await own?.close();
  }
}

async function invoiceOf(ctx: CommandContext, id: string) {
  const invoice = await ctx.db.selectFrom('invoices').select(['company_id', 'number', 'status', 'sent_at']).where('id', '=', id).executeTakeFirst();
  if (!invoice) throw new Refusal(`no invoice ${id}`);
  return invoice;
}

const draft: ModuleCommand = {
  name: 'admin invoice draft',
  usage: [
    'kontor admin invoice draft --company ID --file JSON_FILE --by EMAIL [--json]   write a draft as in the app (the body of POST /invoices; the API does not see it)',
  ],
  async run(args, io, ctx) {
    const { values } = parse(args, { company: { type: 'string' }, file: { type: 'string' }, by: { type: 'string' } }, 0);
    const companyId = requiredFlag(values, 'company');
    const file = path.resolve(ctx.cwd, requiredFlag(values, 'file'));
    const by = requiredFlag(values, 'by');
    const { AppDraftError, createAppDraft } = await import('../modules/invoicing/index.ts');
    return run(io, async () => {
      const actor = await actorFor(ctx, by, companyId, false);
      let body: unknown;
      try {
        body = JSON.parse(await readFile(file, 'utf8'));
      } catch (error) {
        throw new Refusal(`${file} is no readable JSON file: ${(error as Error).message}`);
      }
      const view = await withInvoicing(ctx, async (deps) => {
        try {
          return await createAppDraft(deps, companyId, body, actor);
        } catch (error) {
          if (error instanceof AppDraftError) throw new Refusal(`the draft was not written: ${error.message}`);
          throw error;
        }
      });
      print(
        io,
        Boolean(values.json),
        { ...view, origin: 'app' },
        `draft ${view.id} written (${view.total_gross} EUR gross); issue it with: kontor admin invoice issue ${view.id} --by ${actor.email}`,
      );
      return 0;
    }, []);
  },
};

const send: ModuleCommand = {
  name: 'admin invoice send',
  usage: ['kontor admin invoice send ID --by EMAIL [--resend] [--json]   mail an issued invoice; --resend mails one that was mailed before once more'],
  async run(args, io, ctx) {
    const { positionals, values } = parse(args, { by: { type: 'string' }, resend: { type: 'boolean' } }, 1);
    const by = requiredFlag(values, 'by');
    const id = positionals[0] as string;
    const { AppError } = await import('../shared/errors.ts');
    const { sendInvoice } = await import('../modules/invoicing/index.ts');
    return run(io, async () => {
      const invoice = await invoiceOf(ctx, id);
      const actor = await actorFor(ctx, by, invoice.company_id, false);
      if (invoice.status === 'draft') throw new Refusal(`invoice ${id} is a draft; issue it first (kontor admin invoice issue ${id})`);
      if (invoice.status === 'cancelled') throw new Refusal(`invoice ${invoice.number} is cancelled and is not mailed any more`);
      const resend = Boolean(values.resend);
      const again = resend && invoice.sent_at !== null;
      const view = await withInvoicing(ctx, async (deps) => {
        try {
          const { renderStoredDocuments } = await import('../modules/invoicing/index.ts');
          await renderStoredDocuments(deps, invoice.company_id, id);
          return await sendInvoice(deps, invoice.company_id, id, { resend, again, actor });
        } catch (error) {
          if (error instanceof AppError && error.code === 'invoice_send_failed') {
            const sendError = (error.fields as { send_error?: { code: string; message: string } }).send_error;
            throw new Refusal(`invoice ${invoice.number} was not mailed (${sendError?.code ?? 'unknown'}): ${sendError?.message ?? error.message}`);
          }
          throw error;
        }
      });
      const mailed = invoice.sent_at === null || again;
      const text = mailed
        ? `invoice ${view.number} mailed${again ? ' again' : ''}; status ${view.status}`
        : `invoice ${view.number} was mailed before (${view.sent_at}); nothing mailed — --resend mails it once more`;
      print(io, Boolean(values.json), { ...view, mailed }, text);
      return 0;
    }, []);
  },
};

const cancel: ModuleCommand = {
  name: 'admin invoice cancel',
  usage: ['kontor admin invoice cancel ID --by EMAIL [--json]   cancel an issued invoice with a Stornorechnung (prints the storno)'],
  async run(args, io, ctx) {
    const { positionals, values } = parse(args, { by: { type: 'string' } }, 1);
    const by = requiredFlag(values, 'by');
    const id = positionals[0] as string;
    const { AppError } = await import('../shared/errors.ts');
    const { cancelInvoice } = await import('../modules/invoicing/index.ts');
    return run(io, async () => {
      const invoice = await invoiceOf(ctx, id);
      const actor = await actorFor(ctx, by, invoice.company_id, false);
      const result = await withInvoicing(ctx, async (deps) => {
        try {
          return await cancelInvoice(deps, invoice.company_id, id, actor);
        } catch (error) {
          if (error instanceof AppError && (error.code === 'invoice_not_cancellable' || error.code === 'period_locked'))
            throw new Refusal(`invoice ${invoice.number ?? id} was not cancelled: ${error.message}`);
          throw error;
        }
      });
      const { storno } = result;
      const text = result.created
        ? `invoice ${invoice.number} cancelled by Stornorechnung ${storno.number} (${storno.total_gross} EUR)`
        : `invoice ${invoice.number} was cancelled before by ${storno.number}; nothing changed`;
      print(io, Boolean(values.json), { ...storno, created: result.created }, text);
      return 0;
    }, []);
  },
};

export const INVOICE_COMMANDS: ModuleCommand[] = [draft, send, cancel];
