import type { Database } from '../../db/connection.ts';
import { inTransaction } from '../../db/transaction.ts';
import type { Clock } from '../../shared/clock.ts';
import { newId } from '../../shared/ids.ts';
import type { Sealer } from '../../shared/secrets.ts';
import { AdminError } from '../access/admin-error.ts';
import { EVENT_KINDS } from './event-kinds.ts';
import { generateWebhookSecret } from './webhook-secret.ts';
import { checkWebhookUrl } from './webhook-url.ts';

export type AddWebhookEndpointInput = {
  companyId: string;
  url: string;
  /** Event kinds to deliver; empty or absent = every kind. */
  events?: string[];
};

/**
 * `kontor admin webhook add`: a new endpoint of the company with a fresh signing secret.
 * The secret is returned only here (stored sealed, it is never shown again). The
 * endpoint receives the events fanned out from now on.
 */
export async function addWebhookEndpoint(db: Database, clock: Clock, sealer: Sealer, input: AddWebhookEndpointInput): Promise<{ id: string; secret: string }> {
  const url = checkWebhookUrl(input.url);
  const events = [...new Set((input.events ?? []).map((kind) => kind.trim()).filter((kind) => kind !== ''))];
  const unknown = events.filter((kind) => !EVENT_KINDS.includes(kind));
  if (unknown.length > 0) throw new AdminError(`unknown event kind ${unknown.join(', ')}; known: ${EVENT_KINDS.join(', ')}`);

  const id = newId('whe');
  const secret = generateWebhookSecret();
  await inTransaction(db, async (trx) => {
    const company = await trx.selectFrom('companies').select('id').where('id', '=', input.companyId).executeTakeFirst();
    if (!company) throw new AdminError(`no company ${input.companyId}`);
    await trx
      .insertInto('webhook_endpoints')
      .values({ company_id: company.id, id, url, event_types: events, secret_sealed: sealer.seal(secret), created_at: clock.now() })
      .execute();
  });
  return { id, secret };
}
