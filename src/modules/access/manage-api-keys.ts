import { sql } from 'kysely';
import type { Database } from '../../db/connection.ts';
import { inTransaction } from '../../db/transaction.ts';
import { type Clock, zonedParts } from '../../shared/clock.ts';
import { newId } from '../../shared/ids.ts';
import { type Actor, recordAudit } from '../audit/audit-log.ts';
import { AdminError } from './admin-error.ts';
import { generateApiKey, hashApiKey, SCOPES, type Scope } from './api-keys.ts';

export type ApiKeyErrorCode =
  | 'expiry_invalid'
  | 'expiry_past'
  | 'company_unknown'
  | 'creator_not_member'
  | 'creator_inactive'
  | 'creator_not_admin'
  | 'creator_no_access'
  | 'scopes_empty'
  | 'key_unknown';

/** A refused key operation: `code` for the app (German text), the message for the command line. */
export class ApiKeyError extends AdminError {
  readonly code: ApiKeyErrorCode;
  constructor(code: ApiKeyErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

export type CreateApiKeyInput = {
  companyId: string;
  creatorEmail: string;
  scopes?: Scope[];
  expiresOn?: string;
  allCompanies?: boolean;
  /** The zone whose end of `expiresOn` ends the key (the app: the company's); default UTC. */
  timeZone?: string;
};

/** The last instant of `date` (YYYY-MM-DD) in `timeZone`: the start of the next day there, less 1 ms. */
function endOfDay(date: string, timeZone: string): Date {
  const next = new Date(Date.parse(`${date}T00:00:00Z`) + 24 * 60 * 60 * 1000);
  const midnightUtc = next.getTime();
  const offset = (instant: number) => {
    const p = zonedParts(new Date(instant), timeZone);
    const local = Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute), Number(p.second));
    return local - Math.floor(instant / 1000) * 1000;
  };
  // Two passes settle the offset across a daylight-saving change on that day.
  let instant = midnightUtc - offset(midnightUtc);
  instant = midnightUtc - offset(instant);
  return new Date(instant - 1);
}

/**
 * Creates a key for one company (or, with allCompanies, for every company of the
 * organisation, which the API refuses with api_key_entity_not_single). The creator must
 * be an active admin who reaches the company. Expiry is the end of `expiresOn` (UTC, or
 * in `timeZone`). With `actor` (the app, `--by`), the audit row `api_key.created` is
 * written in the same transaction: id, scopes and expiry, never the key or its hash.
 */
export async function createApiKey(db: Database, clock: Clock, input: CreateApiKeyInput, actor?: Actor): Promise<{ api_key: string; id: string }> {
  let expiresAt: Date | null = null;
  if (input.expiresOn !== undefined) {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(input.expiresOn) || Number.isNaN(Date.parse(`${input.expiresOn}T00:00:00Z`))) {
      throw new ApiKeyError('expiry_invalid', `--expires must be a date YYYY-MM-DD, got ${input.expiresOn}`);
    }
    expiresAt = input.timeZone ? endOfDay(input.expiresOn, input.timeZone) : new Date(`${input.expiresOn}T23:59:59.999Z`);
    if (expiresAt.getTime() <= clock.now().getTime()) throw new ApiKeyError('expiry_past', '--expires lies in the past');
  }
  if (input.scopes !== undefined && input.scopes.length === 0) throw new ApiKeyError('scopes_empty', 'a key needs at least one scope');
  const apiKey = generateApiKey();
  const id = newId('key');
  const scopes = input.scopes ?? [...SCOPES];
  await inTransaction(db, async (trx) => {
    const company = await trx.selectFrom('companies').select(['id', 'organization_id']).where('id', '=', input.companyId).executeTakeFirst();
    if (!company) throw new ApiKeyError('company_unknown', `no company ${input.companyId}`);
    const creator = await trx
      .selectFrom('users as u')
      .innerJoin('memberships as m', 'm.user_id', 'u.id')
      .select(['u.id', 'm.role', 'm.active'])
      .where('u.email', '=', input.creatorEmail.trim().toLowerCase())
      .where('m.organization_id', '=', company.organization_id)
      .executeTakeFirst();
    if (!creator) throw new ApiKeyError('creator_not_member', `${input.creatorEmail} is not a member of the company's organisation`);
    if (!creator.active) throw new ApiKeyError('creator_inactive', `${input.creatorEmail} is deactivated`);
    if (creator.role !== 'admin') throw new ApiKeyError('creator_not_admin', `${input.creatorEmail} is not an admin; only admins create API keys`);
    const access = await trx
      .selectFrom('company_access')
      .select('user_id')
      .where('company_id', '=', company.id)
      .where('user_id', '=', creator.id)
      .executeTakeFirst();
    if (!access) throw new ApiKeyError('creator_no_access', `${input.creatorEmail} has no access to company ${company.id}`);
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
        scopes,
        expires_at: expiresAt,
      })
      .execute();
    if (actor) {
      await recordAudit(trx, actor, clock.now(), {
        action: 'api_key.created',
        subjectType: 'api_key',
        subjectId: id,
        after: {
          scopes,
          expires_at: expiresAt?.toISOString() ?? null,
          company_id: input.allCompanies ? null : company.id,
          creator_user_id: creator.id,
        },
      });
    }
  });
  return { api_key: apiKey, id };
}

export type RevokeApiKeyOptions = {
  /** Who revokes: the audit row `api_key.revoked` is written in the revocation's transaction. */
  actor?: Actor;
  /** Only a key of this company (the app): another company's key is unknown. */
  companyId?: string;
};

/**
 * Revokes the key at once (the API answers 401 api_key_invalid; a process caching look-ups
 * forgets them through onKeyRevoked). Revoking a revoked key changes nothing and returns
 * when it was revoked.
 */
export async function revokeApiKey(db: Database, clock: Clock, id: string, options: RevokeApiKeyOptions = {}): Promise<{ id: string; revoked_at: string }> {
  return inTransaction(db, async (trx) => {
    const row = await trx
      .updateTable('api_keys')
      .set({ revoked_at: clock.now() })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .$if(options.companyId !== undefined, (qb) => qb.where('company_id', '=', options.companyId as string))
      .returning(['id', 'revoked_at', 'company_id', 'scopes', 'expires_at'])
      .executeTakeFirst();
    if (row?.revoked_at) {
      if (options.actor) {
        await recordAudit(trx, options.actor, clock.now(), {
          action: 'api_key.revoked',
          subjectType: 'api_key',
          subjectId: row.id,
          before: { revoked_at: null },
          after: { revoked_at: row.revoked_at.toISOString() },
        });
      }
      return { id: row.id, revoked_at: row.revoked_at.toISOString() };
    }
    const existing = await trx
      .selectFrom('api_keys')
      .select(['id', 'revoked_at'])
      .where('id', '=', id)
      .$if(options.companyId !== undefined, (qb) => qb.where('company_id', '=', options.companyId as string))
      .executeTakeFirst();
    if (!existing?.revoked_at) throw new ApiKeyError('key_unknown', `no API key ${id}`);
    return { id: existing.id, revoked_at: existing.revoked_at.toISOString() };
  });
}

export type ApiKeyStatus = 'active' | 'expired' | 'revoked';

export type ApiKeyView = {
  id: string;
  /** The first 8 characters of the key (`kt_` and 5 more): enough to recognise it, never the key. */
  prefix: string;
  scopes: string[];
  creator_email: string;
  /** The creator can no longer lend the key rights (not an active admin with access): the API refuses it. */
  creator_without_rights: boolean;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  status: ApiKeyStatus;
};

/**
 * The keys of a company, newest first, `limit` at a time after the key `beforeId` (ids sort
 * by creation). Never the key or its hash. `status` as of the clock.
 */
export async function listApiKeys(db: Database, clock: Clock, companyId: string, options: { beforeId?: string; limit?: number } = {}): Promise<ApiKeyView[]> {
  const now = clock.now().getTime();
  const rows = await db
    .selectFrom('api_keys as k')
    .innerJoin('users as u', 'u.id', 'k.creator_user_id')
    .leftJoin('memberships as m', (join) => join.onRef('m.organization_id', '=', 'k.organization_id').onRef('m.user_id', '=', 'k.creator_user_id'))
    .select([
      'k.id',
      'k.key_prefix',
      'k.scopes',
      'u.email',
      'k.created_at',
      'k.expires_at',
      'k.revoked_at',
      'm.active',
      'm.role',
      sql<boolean>`exists (select 1 from company_access a where a.company_id = k.company_id and a.user_id = k.creator_user_id)`.as('has_access'),
    ])
    .where('k.company_id', '=', companyId)
    .$if(options.beforeId !== undefined, (qb) => qb.where('k.id', '<', options.beforeId as string))
    .orderBy('k.id', 'desc')
    .limit(options.limit ?? 50)
    .execute();
  return rows.map((row) => ({
    id: row.id,
    prefix: row.key_prefix,
    scopes: row.scopes,
    creator_email: row.email,
    creator_without_rights: !(row.active && row.role === 'admin' && row.has_access),
    created_at: row.created_at.toISOString(),
    expires_at: row.expires_at?.toISOString() ?? null,
    revoked_at: row.revoked_at?.toISOString() ?? null,
    status: row.revoked_at ? 'revoked' : row.expires_at && row.expires_at.getTime() <= now ? 'expired' : 'active',
  }));
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
