import type { Database } from '../../db/connection.ts';
import { inTransaction } from '../../db/transaction.ts';
import type { Clock } from '../../shared/clock.ts';
import { newId } from '../../shared/ids.ts';
import type { Sealer } from '../../shared/secrets.ts';
import { AdminError } from '../access/admin-error.ts';
import { type Actor, recordAudit } from '../audit/audit-log.ts';
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
 * endpoint receives the events fanned out from now on. With `actor` (the app, `--by`) the
 * audit row `webhook.endpoint_added` (URL and kinds, never the secret) is written in the
 * same transaction; the actor's company must be the endpoint's.
 */
export async function addWebhookEndpoint(
  db: Database,
  clock: Clock,
  sealer: Sealer,
  input: AddWebhookEndpointInput,
  actor?: Actor,
): Promise<{ id: string; secret: string }> {
  const url = checkWebhookUrl(input.url);
  const events = [...new Set((input.events ?? []).map((kind) => kind.trim()).filter((kind) => kind !== ''))];
  const unknown = events.filter((kind) => !EVENT_KINDS.includes(kind));
  if (unknown.length > 0) throw new AdminError(`unknown event kind ${unknown.join(', ')}; known: ${EVENT_KINDS.join(', ')}`);

  const id = newId('whe');
  const secret = generateWebhookSecret();
  await inTransaction(db, async (trx) => {
    const company = await trx.selectFrom('companies').select('id').where('id', '=', input.companyId).executeTakeFirst();
    if (!company || (actor && actor.companyId !== company.id)) throw new AdminError(`no company ${input.companyId}`);
    await trx
      .insertInto('webhook_endpoints')
      .values({ company_id: company.id, id, url, event_types: events, secret_sealed: sealer.seal(secret), created_at: clock.now() })
      .execute();
    if (actor) {
      await recordAudit(trx, actor, clock.now(), { action: 'webhook.endpoint_added', subjectType: 'webhook_endpoint', subjectId: id, after: { url, events } });
    }
  });
  return { id, secret };
}
