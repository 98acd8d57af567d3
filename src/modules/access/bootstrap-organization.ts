import type { Database } from '../../db/connection.ts';
import { inTransaction } from '../../db/transaction.ts';
import { newId, randomBase62 } from '../../shared/ids.ts';
import { hashPassword } from '../../shared/passwords.ts';
import type { Sealer } from '../../shared/secrets.ts';
import { AdminError } from './admin-error.ts';
import { generateApiKey, hashApiKey, SCOPES, type Scope } from './api-keys.ts';
import { assertCompanyLaw, companyLawAfter, parseCompanyFile } from './company-file.ts';

export type BootstrapInput = { organizationName: string; companyFile: string; adminEmail: string; scopes?: Scope[] };
export type BootstrapResult = { organization_id: string; company_id: string; user_id: string; user_password: string; api_key: string };

export const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Creates an organisation, its admin (with a one-time password), a company and an API key for it. */
export async function bootstrapOrganization(db: Database, sealer: Sealer, input: BootstrapInput): Promise<BootstrapResult> {
  const organizationName = input.organizationName.trim();
  if (!organizationName || organizationName.length > 255) throw new AdminError('--org must be 1 to 255 characters');
  const email = input.adminEmail.trim().toLowerCase();
  if (!EMAIL.test(email)) throw new AdminError(`--admin-email is not an e-mail address: ${input.adminEmail}`);
  const company = parseCompanyFile(input.companyFile, sealer, { requireName: true });
  assertCompanyLaw(companyLawAfter(company, null));
  const password = randomBase62(20);
  const passwordHash = await hashPassword(password);
  const apiKey = generateApiKey();
  const ids = { organization: newId('org'), company: newId('cmp'), user: newId('usr'), key: newId('key') };

  await inTransaction(db, async (trx) => {
    const existing = await trx.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst();
    if (existing) throw new AdminError(`a user with the e-mail ${email} exists already; create keys with 'kontor admin api-key create'`);
    await trx.insertInto('organizations').values({ id: ids.organization, name: organizationName }).execute();
    await trx.insertInto('users').values({ id: ids.user, email, password_hash: passwordHash }).execute();
    await trx.insertInto('memberships').values({ organization_id: ids.organization, user_id: ids.user, role: 'admin' }).execute();
    await trx
      .insertInto('companies')
      .values({ ...company, name: company.name as string, id: ids.company, organization_id: ids.organization })
      .execute();
    await trx.insertInto('company_access').values({ company_id: ids.company, user_id: ids.user }).execute();
    await trx
      .insertInto('api_keys')
      .values({
        id: ids.key,
        organization_id: ids.organization,
        creator_user_id: ids.user,
        company_id: ids.company,
        all_companies: false,
        key_hash: hashApiKey(apiKey),
        key_prefix: apiKey.slice(0, 8),
        scopes: input.scopes ?? [...SCOPES],
      })
      .execute();
  });
  return { organization_id: ids.organization, company_id: ids.company, user_id: ids.user, user_password: password, api_key: apiKey };
}
