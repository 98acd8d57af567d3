// Row types of the partner portal's tables (migrations/0046_partner_portal.sql, 0047_portal_sessions.sql).

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

export interface PortalTables {
  portal_sessions: PortalSessionsTable;
  partner_accounts: PartnerAccountsTable;
  partner_invitations: PartnerInvitationsTable;
}
