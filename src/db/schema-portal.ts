// Row types of the partner portal's tables (migrations/0046_partner_portal.sql, 0047_portal_sessions.sql,
// 0049_partner_change_requests.sql).
import type { Json } from './schema-types.ts';

export interface PartnerAccountsTable {
  company_id: string;
  id: string;
  partner_id: string;
  /** Lower case; unique in the installation. */
  email: string;
  /** Null until the partner has chosen a password through the invitation link. */
  password_hash: string | null;
  active: boolean;
  created_at: Date;
  activated_at: Date | null;
  deactivated_at: Date | null;
}

export interface PartnerInvitationsTable {
  /** SHA-256 (hex) of the link's token. */
  id: string;
  company_id: string;
  account_id: string;
  created_at: Date;
  expires_at: Date;
  accepted_at: Date | null;
  superseded_at: Date | null;
}

/** A portal session (migrations/0047_portal_sessions.sql); id is the SHA-256 of the cookie's token. */
export interface PortalSessionsTable {
  id: string;
  company_id: string;
  account_id: string;
  csrf_token: string;
  created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
}

export type PartnerChangeKind = 'payout_account' | 'address' | 'vat_id' | 'tax_number';
export type PartnerChangeStatus = 'pending' | 'confirmed' | 'rejected' | 'superseded' | 'withdrawn';
/**
 * The values of a change request by field: payout_account `iban_sealed`, `iban_masked`,
 * `bic`; address `street`, `house_number`, `zip`, `city`, `country_code`; `vat_id`;
 * `tax_number`. Never an IBAN in clear text (`current` has the masked one only).
 */
export type PartnerChangeValues = Record<string, string | null>;

/** A partner's request to change its data, confirmed or rejected by an admin of the company. */
export interface PartnerChangeRequestsTable {
  company_id: string;
  id: string;
  partner_id: string;
  /** The partner account that asked. */
  account_id: string;
  kind: PartnerChangeKind;
  requested: Json<PartnerChangeValues>;
  /** What was on file when the partner asked. */
  current: Json<PartnerChangeValues>;
  status: PartnerChangeStatus;
  requested_at: Date;
  decided_at: Date | null;
  /** The admin (users.id) who confirmed or rejected it. */
  decided_by: string | null;
  /** The reason of a rejection. */
  decision_note: string | null;
}

export interface PortalTables {
  partner_change_requests: PartnerChangeRequestsTable;
  portal_sessions: PortalSessionsTable;
  partner_accounts: PartnerAccountsTable;
  partner_invitations: PartnerInvitationsTable;
}
