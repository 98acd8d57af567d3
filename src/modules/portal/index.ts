// The partner portal (issue 27): partner accounts and their invitations.
import './invitation-mail.ts'; // registers the job that mails the invitation link

export { INVITATION_MAIL_JOB, type InvitationMailPayload, invitationUrl } from './invitation-link.ts';
export {
  acceptPartnerInvitation,
  changePartnerPassword,
  deactivatePartnerAccount,
  INVITATION_DAYS,
  invitationAccount,
  invitePartnerAccount,
  type PartnerAccount,
  type PartnerInvitation,
  type PortalPasswordChange,
  partnerAccounts,
  verifyPartnerPassword,
} from './partner-accounts.ts';
export { PortalError, type PortalRefusal } from './portal-error.ts';
export {
  endPortalSession,
  endPortalSessions,
  findPortalSession,
  PORTAL_ABSOLUTE_MS,
  PORTAL_IDLE_MS,
  type PortalSession,
  startPortalSession,
} from './portal-sessions.ts';
export { PortalUrlError, portalUrlOf } from './portal-url.ts';
