import { type ModuleCommand, parseCommandArgs as parse, printResult as print, requiredFlag } from './command-kit.ts';
import { UsageError } from './io.ts';

// The partner portal on the command line (issue 27):
//   kontor admin partner invite --company ID --partner SOURCE/REF|ID --email EMAIL --by EMAIL [--portal-url URL] [--json]
//   kontor admin partner deactivate-portal ACCOUNT_ID --company ID --by EMAIL [--json]
// --by names the person of the company acting (an active member with access to it), as for
// every person-side step: the invitation is in the company's audit trail under that person.
// The portal's address: --portal-url, else KONTOR_PUBLIC_URL + /portal, else
// http://127.0.0.1:<PORT or 8080>/portal.

/** Where partners reach the portal (modules/portal/portal-url.ts), a wrong address a usage error. */
export async function cliPortalUrl(given: string | undefined, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const { portalUrlOf, PortalUrlError } = await import('../modules/portal/index.ts');
  try {
    return portalUrlOf(given, env, `http://127.0.0.1:${env.PORT || '8080'}/portal`);
  } catch (error) {
    if (error instanceof PortalUrlError) throw new UsageError(error.message);
    throw error;
  }
}

export const PORTAL_COMMANDS: ModuleCommand[] = [
  {
    name: 'admin partner invite',
    usage: [
      'kontor admin partner invite --company ID --partner SOURCE/REF|ID --email EMAIL --by EMAIL [--portal-url URL] [--json]   invite a partner to the portal (a link valid 7 days, mailed from the company)',
    ],
    async run(args, io, ctx) {
      const { values } = parse(
        args,
        { company: { type: 'string' }, partner: { type: 'string' }, email: { type: 'string' }, by: { type: 'string' }, 'portal-url': { type: 'string' } },
        0,
      );
      const companyId = requiredFlag(values, 'company');
      const partnerRef = requiredFlag(values, 'partner');
      const email = requiredFlag(values, 'email');
      const by = requiredFlag(values, 'by');
      const portalUrl = await cliPortalUrl(typeof values['portal-url'] === 'string' ? values['portal-url'] : undefined);
      const { actorFor, Refusal, run } = await import('./app-action-commands.ts');
      const { invitePartnerAccount, PortalError } = await import('../modules/portal/index.ts');
      return run(io, async () => {
        const actor = await actorFor(ctx, by, companyId, false);
        const slash = partnerRef.indexOf('/');
        let partnerQuery = ctx.db.selectFrom('commission_partners').select('id').where('company_id', '=', companyId);
        partnerQuery =
          slash > 0
            ? partnerQuery.where('external_source', '=', partnerRef.slice(0, slash)).where('external_ref', '=', partnerRef.slice(slash + 1))
            : partnerQuery.where('id', '=', partnerRef);
        const partner = await partnerQuery.executeTakeFirst();
        if (!partner) throw new Refusal(`no partner ${partnerRef} in company ${companyId}`);
        const invitation = await invitePartnerAccount(ctx, actor, { companyId, partnerId: partner.id, email, portalUrl });
        const result = {
          account_id: invitation.account_id,
          partner_id: partner.id,
          email: invitation.email,
          portal_url: portalUrl,
          invitation_url: invitation.invitation_url,
          expires_at: invitation.expires_at.toISOString(),
        };
        print(
          io,
          Boolean(values.json),
          result,
          `${invitation.email} invited to ${portalUrl} (link valid until ${result.expires_at}; mailed from the company): ${invitation.invitation_url}`,
        );
        return 0;
      }, [PortalError]);
    },
  },
  {
    name: 'admin partner deactivate-portal',
    usage: ['kontor admin partner deactivate-portal ACCOUNT_ID --company ID --by EMAIL [--json]   end a partner account of the portal'],
    async run(args, io, ctx) {
      const { positionals, values } = parse(args, { company: { type: 'string' }, by: { type: 'string' } }, 1);
      const accountId = positionals[0] as string;
      const companyId = requiredFlag(values, 'company');
      const by = requiredFlag(values, 'by');
      const { actorFor, run } = await import('./app-action-commands.ts');
      const { deactivatePartnerAccount, PortalError } = await import('../modules/portal/index.ts');
      return run(io, async () => {
        const actor = await actorFor(ctx, by, companyId, false);
        const changed = await deactivatePartnerAccount(ctx, actor, companyId, accountId);
        print(
          io,
          Boolean(values.json),
          { account_id: accountId, active: false, changed },
          `partner account ${accountId} ${changed ? 'deactivated' : 'was inactive already'}`,
        );
        return 0;
      }, [PortalError]);
    },
  },
];
