import { AdminError } from '../modules/access/admin-error.ts';
import type { Actor } from '../modules/audit/audit-log.ts';
import { actorFor, Refusal } from './app-action-commands.ts';
import { type CommandContext, type ModuleCommand, parseCommandArgs as parse, printResult as print, requiredFlag as required, when } from './command-kit.ts';

// Loaded when a command runs, not when `kontor` starts (commands.ts).
const apiKeys = () => import('../modules/access/manage-api-keys.ts');

// `kontor admin api-key list`, and the person (--by EMAIL) that `admin api-key create|revoke`
// (commands.ts) record in the audit trail as the app does. Refusals are AdminErrors:
// runCommand prints them as `kontor: <message>` with exit code 1.

/** The admin --by names, acting in the company (a Refusal of actorFor as an AdminError). */
export async function keyActor(ctx: CommandContext, email: string, companyId: string): Promise<Actor> {
  try {
    return await actorFor(ctx, email, companyId, true);
  } catch (error) {
    if (error instanceof Refusal) throw new AdminError(error.message);
    throw error;
  }
}

/** For `revoke ID --by EMAIL`: the admin acting in the key's company, and that company. */
export async function revokeActor(ctx: CommandContext, email: string, keyId: string): Promise<{ actor: Actor; companyId: string }> {
  const key = await ctx.db.selectFrom('api_keys').select(['company_id']).where('id', '=', keyId).executeTakeFirst();
  if (!key) throw new AdminError(`no API key ${keyId}`);
  if (key.company_id === null) throw new AdminError(`API key ${keyId} is not limited to one company; revoke it without --by`);
  return { actor: await keyActor(ctx, email, key.company_id), companyId: key.company_id };
}

export const API_KEY_COMMANDS: ModuleCommand[] = [
  {
    name: 'admin api-key list',
    usage: ["kontor admin api-key list --company ID [--json]   the company's keys (prefix, scopes, creator, expiry, status; never the key)"],
    async run(args, io, ctx) {
      const { values } = parse(args, { company: { type: 'string' } }, 0);
      const companyId = required(values, 'company');
      const company = await ctx.db.selectFrom('companies').select('id').where('id', '=', companyId).executeTakeFirst();
      if (!company) throw new AdminError(`no company ${companyId}`);
      const keys = await (await apiKeys()).listApiKeys(ctx.db, ctx.clock, companyId, { limit: 10_000 });
      const text = keys.length
        ? keys
            .map(
              (k) =>
                `${k.id}  ${k.prefix}…  ${k.status}${k.status === 'active' && k.creator_without_rights ? ' (creator without rights: refused)' : ''}  ${k.scopes.join(',')}  by ${k.creator_email} ${when(k.created_at)}  expires ${when(k.expires_at)}${k.revoked_at ? `  revoked ${when(k.revoked_at)}` : ''}`,
            )
            .join('\n')
        : 'no API keys';
      print(io, Boolean(values.json), { keys }, text);
      return 0;
    },
  },
];
