import type { Database } from '../../db/connection.ts';
import { inTransaction } from '../../db/transaction.ts';
import type { Clock } from '../../shared/clock.ts';
import { newId } from '../../shared/ids.ts';
import { AdminError } from './admin-error.ts';
import { generateApiKey, hashApiKey, SCOPES, type Scope } from './api-keys.ts';

export type CreateApiKeyInput = { companyId: string; creatorEmail: string; scopes?: Scope[]; expiresOn?: string; allCompanies?: boolean };

/**
 * Creates a key for one company (or, with allCompanies, for every company of the
 * organisation, which the API refuses with api_key_entity_not_single). The creator must
 * be an active admin who reaches the company. Expiry is the end of `expiresOn` (UTC).
 */
export async function createApiKey(db: Database, clock: Clock, input: CreateApiKeyInput): Promise<{ api_key: string; id: string }> {
  let expiresAt: Date | null = null;
  if (input.expiresOn !== undefined) {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(input.expiresOn) || Number.isNaN(Date.parse(`${input.expiresOn}T00:00:00Z`))) {
      throw new AdminError(`--expires must be a date YYYY-MM-DD, got ${input.expiresOn}`);
    }
    expiresAt = new Date(`${input.expiresOn}T23:59:59.999Z`);
    if (expiresAt.getTime() <= clock.now().getTime()) throw new AdminError('--expires lies in the past');
  }
  const apiKey = generateApiKey();
  const id = newId('key');
  await inTransaction(db, async (trx) => {
    const company = await trx.selectFrom('companies').select(['id', 'organization_id']).where('id', '=', input.companyId).executeTakeFirst();
    if (!company) throw new AdminError(`no company ${input.companyId}`);
    const creator = await trx
      .selectFrom('users as u')
      .innerJoin('memberships as m', 'm.user_id', 'u.id')
      .select(['u.id', 'm.role', 'm.active'])
      .where('u.email', '=', input.creatorEmail.trim().toLowerCase())
      .where('m.organization_id', '=', company.organization_id)
      .executeTakeFirst();
    if (!creator) throw new AdminError(`${input.creatorEmail} is not a member of the company's organisation`);
    if (!creator.active) throw new AdminError(`${input.creatorEmail} is deactivated`);
    if (creator.role !== 'admin') throw new AdminError(`${input.creatorEmail} is not an admin; only admins create API keys`);
    const access = await trx
      .selectFrom('company_access')
      .select('user_id')
      .where('company_id', '=', company.id)
      .where('user_id', '=', creator.id)
      .executeTakeFirst();
    if (!access) throw new AdminError(`${input.creatorEmail} has no access to company ${company.id}`);
    await trx
      .insertInto('api_keys')
      .values({
        id,
        organization_id: company.organization_id,
        creator_user_id: creator.id,
        company_id: input.allCompanies ? null : company.id,
        all_companies: input.allCompanies ?? false,
        key_hash: hashApiKey(apiKey),
        key_prefix: apiKey.slice(0, 8),
        scopes: input.scopes ?? [...SCOPES],
        expires_at: expiresAt,
      })
      .execute();
  });
  return { api_key: apiKey, id };
}

export async function revokeApiKey(db: Database, clock: Clock, id: string): Promise<{ id: string; revoked_at: string }> {
  const row = await db
    .updateTable('api_keys')
    .set({ revoked_at: clock.now() })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .returning(['id', 'revoked_at'])
    .executeTakeFirst();
  if (row?.revoked_at) return { id: row.id, revoked_at: row.revoked_at.toISOString() };
  const existing = await db.selectFrom('api_keys').select(['id', 'revoked_at']).where('id', '=', id).executeTakeFirst();
  if (!existing?.revoked_at) throw new AdminError(`no API key ${id}`);
  return { id: existing.id, revoked_at: existing.revoked_at.toISOString() };
}

export function parseScopes(value: string | undefined): Scope[] | undefined {
  if (value === undefined) return undefined;
  const scopes = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (unknown.length > 0) throw new AdminError(`unknown scope ${unknown.join(', ')}; known: ${SCOPES.join(', ')}`);
  return [...new Set(scopes)] as Scope[];
}
