import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppDraftError, cancelInvoice, discardAppDraft, renderStoredDocuments, sendInvoice } from '../../modules/invoicing/index.ts';
import type { SendError } from '../../modules/mail/index.ts';
import { AppError } from '../../shared/errors.ts';
import { actorOf, type Member, redirect, type WebDeps } from '../web-request.ts';
import { renderDetail } from './invoice-detail.ts';
import { memberOrNoCompanyPage } from './require-member.ts';

// The steps on an invoice's page besides issuing (invoice-detail.ts): mail it — again, if it
// was mailed before — cancel it by a Stornorechnung, discard a draft the app wrote. Each
// calls the invoicing operation the API and the command line call, with the person as the
// actor (the audit row goes into the operation's transaction). A refusal shows the page
// again with the reason in German (422), never a 500; another company's invoice is not found.

const INVOICE_ID = /^inv_[0-9a-z]{26}$/;

type Step = (request: FastifyRequest, reply: FastifyReply, member: Member, id: string) => Promise<unknown>;

function step(web: FastifyInstance, path: string, work: Step): void {
  web.post(`/invoices/:id/${path}`, async (request, reply) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const { id } = request.params as { id: string };
    if (!INVOICE_ID.test(id)) return reply.callNotFound();
    return work(request, reply, member, id);
  });
}

export function registerInvoiceActions(web: FastifyInstance, deps: WebDeps): void {
  const invoicing = deps.invoicing;
  const refused = (request: FastifyRequest, reply: FastifyReply, id: string, text: string, status = 422) =>
    renderDetail(request, reply, invoicing, id, { kind: 'error', text }, status);
  const ownInvoice = async (member: Member, id: string) =>
    deps.db.selectFrom('invoices').select(['status', 'sent_at']).where('company_id', '=', member.company.id).where('id', '=', id).executeTakeFirst();

  step(web, 'send', async (request, reply, member, id) => {
    const d = request.t.drafts;
    const invoice = await ownInvoice(member, id);
    if (!invoice) return reply.callNotFound();
    const form = (request.body ?? {}) as Record<string, string | undefined>;
    const again = form.again === '1' && invoice.sent_at !== null;
    if (invoice.status === 'cancelled') return refused(request, reply, id, `${d.notSent} ${d.cancelledNotSent}`);
    try {
      // An invoice the billing run issued may not have its files yet: rendered now, as for its PDF.
      if (invoice.status !== 'draft') await renderStoredDocuments(invoicing, member.company.id, id);
      await sendInvoice(invoicing, member.company.id, id, { resend: form.resend === '1', again, actor: actorOf(member) });
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      if (error.code === 'invoice_not_found') return reply.callNotFound();
      if (error.code === 'invoice_send_failed') {
        const sendError = (error.fields as { send_error?: SendError }).send_error;
        const reason = sendError?.code === 'mail_unconfirmed' ? d.unconfirmed : (sendError?.message ?? error.message);
        return refused(request, reply, id, `${d.notSent} ${reason}`);
      }
      if (error.code === 'invoice_not_issued') return refused(request, reply, id, `${d.notSent} ${d.draftNotSent}`);
      if (error.code === 'conflict_retry') return refused(request, reply, id, `${d.notSent} ${d.busy}`, 409);
      throw error;
    }
    return redirect(reply, `/app/invoices/${id}?done=${again ? 'sent-again' : 'sent'}`);
  });

  step(web, 'cancel', async (request, reply, member, id) => {
    const d = request.t.drafts;
    if (!(await ownInvoice(member, id))) return reply.callNotFound();
    try {
      await cancelInvoice(invoicing, member.company.id, id, actorOf(member));
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      if (error.code === 'invoice_not_found') return reply.callNotFound();
      if (error.code === 'invoice_not_cancellable' || error.code === 'period_locked') return refused(request, reply, id, `${d.notCancelled} ${error.message}`);
      if (error.code === 'invoice_render_failed') return refused(request, reply, id, `${d.notCancelled} ${d.renderFailed}`, 500);
      if (error.code === 'conflict_retry') return refused(request, reply, id, `${d.notCancelled} ${d.tryAgain}`, 409);
      throw error;
    }
    return redirect(reply, `/app/invoices/${id}?done=cancelled`);
  });

  step(web, 'discard', async (request, reply, member, id) => {
    try {
      await discardAppDraft(invoicing, member.company.id, id, actorOf(member));
    } catch (error) {
      if (!(error instanceof AppDraftError)) throw error;
      if (error.code === 'invoice_not_found') return reply.callNotFound();
      return refused(request, reply, id, request.t.drafts.notEditable);
    }
    return redirect(reply, '/app/invoices?done=discarded');
  });
}
