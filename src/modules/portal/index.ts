// The partner portal (issue 27): partner accounts and their invitations.
import './invitation-mail.ts'; // registers the job that mails the invitation link

export { INVITATION_MAIL_JOB, type InvitationMailPayload, invitationUrl } from './invitation-link.ts';
export {
  acceptPartnerInvitation,
  deactivatePartnerAccount,
  INVITATION_DAYS,
  invitationAccount,
  invitePartnerAccount,
  type PartnerAccount,
  type PartnerInvitation,
  partnerAccounts,
  verifyPartnerPassword,
} from './partner-accounts.ts';
export { PortalError, type PortalRefusal } from './portal-error.ts';
export { PortalUrlError, portalUrlOf } from './portal-url.ts';
