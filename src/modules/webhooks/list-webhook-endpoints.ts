import type { Database } from '../../db/connection.ts';
import { AdminError } from '../access/admin-error.ts';

export type WebhookEndpointView = {
  id: string;
  company_id: string;
  url: string;
  /** Subscribed kinds; empty = every kind. */
  events: string[];
  status: 'active' | 'failing';
  failing_since: string | null;
  created_at: string;
};

/** `kontor admin webhook list`: the company's endpoints (not removed ones), never the secret. */
export async function listWebhookEndpoints(db: Database, companyId: string): Promise<WebhookEndpointView[]> {
  const company = await db.selectFrom('companies').select('id').where('id', '=', companyId).executeTakeFirst();
  if (!company) throw new AdminError(`no company ${companyId}`);
  const rows = await db
    .selectFrom('webhook_endpoints')
    .select(['id', 'company_id', 'url', 'event_types', 'status', 'failing_since', 'created_at'])
    .where('company_id', '=', companyId)
    .where('status', '!=', 'removed')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((row) => ({
    id: row.id,
    company_id: row.company_id,
    url: row.url,
    events: row.event_types,
    status: row.status as 'active' | 'failing',
    failing_since: row.failing_since?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
  }));
}
