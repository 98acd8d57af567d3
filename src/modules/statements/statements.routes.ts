import type { FastifyInstance } from 'fastify';
import type { StatementStatus } from '../../db/schema-commissions.ts';
import type { RouteDeps } from '../../http/route-deps.ts';
import { AppError } from '../../shared/errors.ts';
import { decodeSeqCursor, encodeSeqCursor, listedPartner, type PartnerListQuery } from '../commissions/index.ts';
import { type RenderStatement, statementFiles } from './deliver-statement.ts';
import { findStatement, viewsOf } from './statements.repository.ts';
import { downloadCommissionStatementPdfSchema, listCommissionStatementsSchema, retrieveCommissionStatementSchema } from './statements.schemas.ts';

/** `renderStatement`: the server's render threads, for a PDF the delivery job has not stored yet. */
export function registerCommissionStatementRoutes(app: FastifyInstance, deps: RouteDeps & { renderStatement?: RenderStatement | undefined }) {
  const { db } = deps;

  app.get<{ Querystring: PartnerListQuery }>(
    '/commission-statements',
    { schema: listCommissionStatementsSchema, config: { scope: 'partner:commissions:read' } },
    async (request) => {
      const companyId = request.auth.companyId;
      const query = request.query;
      const limit = query.limit ?? 50;
      const partnerId = await listedPartner(db, companyId, query);
      let q = db
        .selectFrom('commission_statements')
        .selectAll()
        .where('company_id', '=', companyId)
        .orderBy('seq')
        .limit(limit + 1);
      if (partnerId) q = q.where('partner_id', '=', partnerId);
      if (query.status) q = q.where('status', '=', query.status as StatementStatus);
      if (query.cursor) q = q.where('seq', '>', decodeSeqCursor(query.cursor));
      const rows = await q.execute();
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return { data: await viewsOf(db, companyId, page), next_cursor: rows.length > limit && last ? encodeSeqCursor(Number(last.seq)) : null };
    },
  );

  // A draft is not shown: "no issued statement with this id" (interface §7).
  const issued = async (companyId: string, id: string) => {
    const row = await findStatement(db, companyId, id);
    if (!row || row.number === null) throw new AppError('commission.statement_not_found');
    return row;
  };

  app.get<{ Params: { id: string } }>(
    '/commission-statements/:id',
    { schema: retrieveCommissionStatementSchema, config: { scope: 'partner:commissions:read' } },
    async (request) => (await viewsOf(db, request.auth.companyId, [await issued(request.auth.companyId, request.params.id)]))[0],
  );

  app.get<{ Params: { id: string } }>(
    '/commission-statements/:id/pdf',
    { schema: downloadCommissionStatementPdfSchema, config: { scope: 'partner:commissions:read' } },
    async (request, reply) => {
      const row = await issued(request.auth.companyId, request.params.id);
      const files = await statementFiles(deps, request.auth.companyId, row.id);
      if (!files) throw new AppError('commission.statement_not_found');
      return reply
        .type('application/pdf')
        .header('content-disposition', `attachment; filename="${(row.number as string).replace(/[^A-Za-z0-9._-]/g, '-')}.pdf"`)
        .send(files.pdf);
    },
  );
}
