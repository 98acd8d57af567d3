import type { FastifyInstance } from 'fastify';
import { AppError, validationFailed } from '../../shared/errors.ts';
import { amountLimitIssues } from './amount-limits.ts';
import { cancelInvoice } from './cancel-invoice.ts';
import { type CreateInvoiceBody, createInvoice } from './create-invoice.ts';
import { IDEMPOTENCY_KEY_PATTERN } from './idempotency.ts';
import { renderStoredDocuments } from './invoice-documents.ts';
import { readFiles } from './invoice-files.ts';
import { invoiceView } from './invoice-view.ts';
import { findApiInvoiceViewRow, findApiInvoiceViewRowByRef, visibleToApi } from './invoices.repository.ts';
import * as schemas from './invoices.schemas.ts';
import type { InvoicingDeps } from './invoicing-deps.ts';
import { type ListInvoicesQuery, listInvoices } from './list-invoices.ts';
import { sendInvoice } from './send-invoice.ts';

type ById = { id: string };

const JSON_TYPE = 'application/json; charset=utf-8';

export function registerInvoiceRoutes(app: FastifyInstance, deps: InvoicingDeps) {
  app.post<{ Body: CreateInvoiceBody }>(
    '/invoices',
    {
      schema: schemas.createInvoiceSchema,
      config: { scope: 'partner:invoices:write' },
      preValidation: async (request) => {
        const key = request.headers['idempotency-key'];
        if (key === undefined) throw new AppError('idempotency_key_missing');
        if (typeof key !== 'string' || !IDEMPOTENCY_KEY_PATTERN.test(key)) throw new AppError('idempotency_key_invalid');
      },
    },
    async (request, reply) => {
      const body = request.body;
      if (body.service_period.end < body.service_period.start) {
        throw validationFailed([{ loc: ['body', 'service_period', 'end'], type: 'less_than_minimum', msg: 'The service period ends before it starts' }]);
      }
      const amountIssues = amountLimitIssues(body.lines);
      if (amountIssues.length > 0) throw validationFailed(amountIssues);
      const answer = await createInvoice(deps, request.auth.companyId, request.headers['idempotency-key'] as string, body);
      if (answer.replayed) reply.header('idempotent-replayed', 'true');
      // The stored text itself, so a replay is the first answer byte for byte.
      return reply
        .code(answer.replayed ? 200 : answer.status)
        .type(JSON_TYPE)
        .serializer((payload) => payload as string)
        .send(answer.body);
    },
  );

  app.get<{ Querystring: ListInvoicesQuery }>(
    '/invoices',
    { schema: schemas.listInvoicesSchema, config: { scope: 'partner:invoices:read' } },
    async (request) => listInvoices(deps.db, request.auth.companyId, request.query),
  );

  app.get<{ Params: { source: string; external_ref: string } }>(
    '/invoices/by-ref/:source/:external_ref',
    { schema: schemas.retrieveInvoiceByRefSchema, config: { scope: 'partner:invoices:read' } },
    async (request) => {
      const row = await findApiInvoiceViewRowByRef(deps.db, request.auth.companyId, request.params.source, request.params.external_ref);
      if (!row) throw new AppError('invoice_not_found');
      return invoiceView(row);
    },
  );

  app.get<{ Params: ById }>('/invoices/:id', { schema: schemas.retrieveInvoiceSchema, config: { scope: 'partner:invoices:read' } }, async (request) => {
    const row = await findApiInvoiceViewRow(deps.db, request.auth.companyId, request.params.id);
    if (!row) throw new AppError('invoice_not_found');
    return invoiceView(row);
  });

  for (const [kind, schema, type] of [
    ['pdf', schemas.downloadInvoicePdfSchema, 'application/pdf'],
    ['xml', schemas.downloadInvoiceXmlSchema, 'application/xml; charset=utf-8'],
  ] as const) {
    app.get<{ Params: ById }>(`/invoices/:id/${kind}`, { schema, config: { scope: 'partner:invoices:read' } }, async (request, reply) => {
      const invoice = await deps.db
        .selectFrom('invoices')
        .select(['status', 'number'])
        .where('company_id', '=', request.auth.companyId)
        .where('id', '=', request.params.id)
        .where('origin', '=', 'api')
        .executeTakeFirst();
      if (!invoice) throw new AppError('invoice_not_found');
      if (invoice.status === 'draft') throw new AppError('invoice_not_issued');
      // An invoice the billing run issued may not have its files yet: they are rendered now.
      const content =
        (await readFiles(deps.db, request.auth.companyId, request.params.id, [kind]))[kind] ??
        (await renderStoredDocuments(deps, request.auth.companyId, request.params.id))?.[kind];
      if (!content) throw new AppError('invoice_pdf_missing', {}, kind === 'xml' ? 'This invoice has no e-invoice XML (private customer).' : undefined);
      return reply.type(type).header('content-disposition', `inline; filename="${invoice.number}.${kind}"`).send(content);
    });
  }

  app.post<{ Params: ById; Body: { resend?: boolean } | undefined }>(
    '/invoices/:id/send',
    {
      schema: schemas.sendInvoiceSchema,
      config: { scope: 'partner:invoices:write' },
      // The body is optional: a request without one is {}.
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request) => {
      if (!(await visibleToApi(deps.db, request.auth.companyId, request.params.id))) throw new AppError('invoice_not_found');
      return sendInvoice(deps, request.auth.companyId, request.params.id, { resend: request.body?.resend === true });
    },
  );

  app.post<{ Params: ById }>(
    '/invoices/:id/cancel',
    { schema: schemas.cancelInvoiceSchema, config: { scope: 'partner:invoices:write' } },
    async (request, reply) => {
      // An invoice written in the app is not the API's to cancel (its origin never changes).
      if (!(await visibleToApi(deps.db, request.auth.companyId, request.params.id))) throw new AppError('invoice_not_found');
      const result = await cancelInvoice(deps, request.auth.companyId, request.params.id);
      return reply.code(result.created ? 201 : 200).send(result.storno);
    },
  );
}
