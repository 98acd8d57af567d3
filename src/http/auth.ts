import { sql } from 'kysely';
import type { Database } from '../db/connection.ts';
import { API_KEY_PATTERN, hashApiKey } from '../modules/access/api-keys.ts';
import type { Clock } from '../shared/clock.ts';
import { AppError } from '../shared/errors.ts';

// Resolves `Authorization: Bearer kt_…` to the key's company, in the order of design §3:
// key present/valid/expired → creator active → creator admin → single company → company
// reachable. Verified look-ups are cached for CACHE_MS so that a request pays a SHA-256
// and a map look-up; a revocation therefore takes effect within CACHE_MS (≤ 5 s).

export const AUTH_CACHE_MS = 4000;
const CACHE_LIMIT = 10_000;

export type AuthContext = { apiKeyId: string; companyId: string; organizationId: string; scopes: readonly string[] };

type KeyFacts = {
  id: string;
  organization_id: string;
  company_id: string | null;
  all_companies: boolean;
  scopes: string[];
  expires_at: Date | null;
  revoked_at: Date | null;
  member_active: boolean | null;
  member_role: string | null;
  has_access: boolean;
};

export type Authenticator = {
  authenticate(header: string | undefined): Promise<AuthContext>;
  /** Drops cached look-ups (after a revocation in this process). */
  forget(): void;
};

async function loadKeyFacts(db: Database, keyHash: string): Promise<KeyFacts | undefined> {
  return db
    .selectFrom('api_keys as k')
    .leftJoin('memberships as m', (join) => join.onRef('m.organization_id', '=', 'k.organization_id').onRef('m.user_id', '=', 'k.creator_user_id'))
    .select([
      'k.id',
      'k.organization_id',
      'k.company_id',
      'k.all_companies',
      'k.scopes',
      'k.expires_at',
      'k.revoked_at',
      'm.active as member_active',
      'm.role as member_role',
      sql<boolean>`exists (select 1 from company_access a join companies c on c.id = a.company_id
        where a.company_id = k.company_id and a.user_id = k.creator_user_id and c.organization_id = k.organization_id)`.as('has_access'),
    ])
    .where('k.key_hash', '=', keyHash)
    .executeTakeFirst();
}

export function createAuthenticator(db: Database, clock: Clock, options: { cacheMs?: number } = {}): Authenticator {
  const cacheMs = options.cacheMs ?? AUTH_CACHE_MS;
  const cache = new Map<string, { facts: KeyFacts | undefined; until: number }>();

  async function facts(keyHash: string): Promise<KeyFacts | undefined> {
    const now = Date.now();
    const hit = cache.get(keyHash);
    if (hit && hit.until > now) return hit.facts;
    const loaded = await loadKeyFacts(db, keyHash);
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(keyHash, { facts: loaded, until: now + cacheMs });
    return loaded;
  }

  return {
    forget: () => cache.clear(),
    async authenticate(header) {
      const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
      if (!match?.[1]) throw new AppError('api_key_missing');
      const key = match[1];
      if (!API_KEY_PATTERN.test(key)) throw new AppError('api_key_invalid');
      const found = await facts(hashApiKey(key));
      if (!found || found.revoked_at) throw new AppError('api_key_invalid');
      if (found.expires_at && found.expires_at.getTime() <= clock.now().getTime()) throw new AppError('api_key_expired');
      if (!found.member_active) throw new AppError('api_key_user_inactive');
      if (found.member_role !== 'admin') throw new AppError('api_key_admin_required');
      if (found.all_companies || !found.company_id) throw new AppError('api_key_entity_not_single');
      if (!found.has_access) throw new AppError('api_key_entity_not_accessible');
      return { apiKeyId: found.id, companyId: found.company_id, organizationId: found.organization_id, scopes: found.scopes };
    },
  };
}
