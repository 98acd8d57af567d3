// The partner portal (issue 27): partner accounts, their invitations, and the partner's change requests.
import './invitation-mail.ts'; // registers the job that mails the invitation link
import './change-request-mail.ts'; // registers the jobs that mail a change request's steps

export { ChangeRequestError, type ChangeRequestRefusal, type FieldProblem } from './change-request-error.ts';
export { type PartnerChangeRequest, partnerChangeRequest, partnerChangeRequests } from './change-request-list.ts';
export { CHANGE_COMPANY_MAIL_JOB, CHANGE_PARTNER_MAIL_JOB } from './change-request-mail.ts';
export { CHANGE_FIELDS, CHANGE_KINDS, FIELD_MAX, isChangeKind, valuesLine } from './change-request-values.ts';
export { PARTNER_DATA_COLUMNS, requestPartnerChange, withdrawPartnerChange } from './change-requests.ts';
export { confirmPartnerChange, MAX_REJECTION_NOTE, rejectPartnerChange } from './decide-change-request.ts';

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
