import type { Database } from '../../db/connection.ts';
import type { Clock } from '../../shared/clock.ts';
import { AdminError } from './admin-error.ts';

async function userId(db: Database, email: string): Promise<string> {
  const user = await db.selectFrom('users').select('id').where('email', '=', email.trim().toLowerCase()).executeTakeFirst();
  if (!user) throw new AdminError(`no user ${email}`);
  return user.id;
}

/** Takes the user's access to every organisation away (their keys answer 401 api_key_user_inactive). */
export async function deactivateUser(db: Database, clock: Clock, email: string) {
  const id = await userId(db, email);
  await db.updateTable('memberships').set({ active: false, updated_at: clock.now() }).where('user_id', '=', id).execute();
  return { user_id: id, active: false };
}

/** admin or member; a member's keys answer 403 api_key_admin_required. */
export async function setUserRole(db: Database, clock: Clock, email: string, role: string) {
  if (role !== 'admin' && role !== 'member') throw new AdminError(`role must be admin or member, got ${role}`);
  const id = await userId(db, email);
  await db.updateTable('memberships').set({ role, updated_at: clock.now() }).where('user_id', '=', id).execute();
  return { user_id: id, role };
}

/** The user no longer reaches the company (their keys for it answer 403 api_key_entity_not_accessible). */
export async function removeCompanyAccess(db: Database, email: string, companyId: string) {
  const id = await userId(db, email);
  const removed = await db.deleteFrom('company_access').where('user_id', '=', id).where('company_id', '=', companyId).executeTakeFirst();
  if (Number(removed.numDeletedRows) === 0) throw new AdminError(`${email} has no access to company ${companyId}`);
  return { user_id: id, company_id: companyId, removed: true };
}
