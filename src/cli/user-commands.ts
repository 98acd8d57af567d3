import type { Actor } from '../modules/audit/audit-log.ts';
import { type ModuleCommand, parseCommandArgs as parse, printResult as print, requiredFlag } from './command-kit.ts';

// `kontor admin user reset-password --email E [--org ID] [--by EMAIL] [--json]` (issue 25):
// a new one-time password for a person, printed once; every session of theirs ends and they
// choose a new password at the next sign-in. With --by an admin of the person's organisation
// acts, under the app's rules (people.ts: not themselves, not a person of another
// organisation too). Without --by the operator on the server recovers any person — the way
// back in when the last admin has lost the password.

export const USER_COMMANDS: ModuleCommand[] = [
  {
    name: 'admin user reset-password',
    usage: [
      'kontor admin user reset-password --email EMAIL [--org ID] [--by EMAIL] [--json]   a new one-time password, printed once; every session ends (without --by: the operator on the server)',
    ],
    async run(args, io, ctx) {
      const { values } = parse(args, { email: { type: 'string' }, org: { type: 'string' }, by: { type: 'string' } }, 0);
      const email = requiredFlag(values, 'email').trim().toLowerCase();
      const { PeopleError, resetPassword } = await import('../modules/access/people.ts');
      const { Refusal, run } = await import('./app-action-commands.ts');
      return run(io, async () => {
        const user = await ctx.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst();
        if (!user) throw new Refusal(`no person with the e-mail address ${email}`);
        const organizations = (await ctx.db.selectFrom('memberships').select('organization_id').where('user_id', '=', user.id).execute()).map(
          (m) => m.organization_id,
        );
        const org = typeof values.org === 'string' ? values.org : undefined;
        if (org && !organizations.includes(org)) throw new Refusal(`${email} does not belong to organisation ${org}`);
        let actor: Actor | 'server' = 'server';
        if (typeof values.by === 'string') {
          const organizationId = org ?? (organizations.length === 1 ? organizations[0] : undefined);
          if (!organizationId) throw new Refusal(`${email} belongs to ${organizations.length} organisations; name one with --org`);
          const by = await ctx.db
            .selectFrom('users as u')
            .innerJoin('memberships as m', 'm.user_id', 'u.id')
            .select(['u.id', 'm.role'])
            .where('u.email', '=', values.by.trim().toLowerCase())
            .where('m.organization_id', '=', organizationId)
            .where('m.active', '=', true)
            .executeTakeFirst();
          if (!by) throw new Refusal(`${values.by} is no active member of organisation ${organizationId}`);
          if (by.role !== 'admin') throw new Refusal(`${values.by} is not an admin; this needs the admin role`);
          actor = { userId: by.id, organizationId, companyId: null };
        }
        const reset = await resetPassword(ctx, actor, user.id);
        print(
          io,
          Boolean(values.json),
          { user_id: reset.userId, email: reset.email, one_time_password: reset.oneTimePassword, sessions_ended: reset.sessionsEnded },
          `password of ${reset.email} reset; ${reset.sessionsEnded} session(s) ended; one-time password (shown once, to be changed at the next sign-in): ${reset.oneTimePassword}`,
        );
        return 0;
      }, [PeopleError]);
    },
  },
];
