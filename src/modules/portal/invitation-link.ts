// The invitation link and the job that mails it (invitation-mail.ts), named apart so that
// the accounts (which enqueue the job) and the job (which reads the accounts) do not import
// each other.

export const INVITATION_MAIL_JOB = 'portal.invitation_mail';

export type InvitationMailPayload = { account_id: string; sealed_token: string; portal_url: string };

/** The link a partner opens: `<portal_url>/invitation/<token>`. */
export const invitationUrl = (portalUrl: string, token: string) => `${portalUrl.replace(/\/+$/, '')}/invitation/${token}`;
