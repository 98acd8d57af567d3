import type { Generated } from 'kysely';

// Row types of the back-office app's tables (migrations/0021_app_sessions.sql, 0022_audit_log.sql).

export interface AppSessionsTable {
  /** SHA-256 (hex) of the cookie's token. */
  id: string;
  user_id: string;
  company_id: string | null;
  csrf_token: string;
  created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
}

export interface SignInThrottleTable {
  /** 'account:' or 'address:' and a SHA-256 (hex). */
  key: string;
  failures: number;
  window_started_at: Date;
  locked_until: Date | null;
}

export interface AuditLogTable {
  organization_id: string;
  id: string;
  seq: Generated<number>;
  company_id: string | null;
  /** The person who acted, or null when a partner acted through the portal. */
  user_id: string | null;
  /** The partner account that acted through the portal (migration 0046), or null. */
  partner_account_id: Generated<string | null>;
  at: Date;
  action: string;
  subject_type: string;
  subject_id: string | null;
  before: unknown;
  after: unknown;
}

/** A form's one-time token, claimed by its first POST (migrations/0040_app_form_tokens.sql). */
export interface AppFormTokensTable {
  session_id: string;
  token: string;
  claimed_at: Date;
  finished_at: Date | null;
  /** Where the first POST led (its redirect), for the ones after it. */
  location: string | null;
}

/** A secret waiting for its one display (sealed). */
export interface AppSecretDisplaysTable {
  id: string;
  session_id: string;
  kind: string;
  sealed: string;
  created_at: Date;
}

export interface WebTables {
  app_form_tokens: AppFormTokensTable;
  app_secret_displays: AppSecretDisplaysTable;
  app_sessions: AppSessionsTable;
  sign_in_throttle: SignInThrottleTable;
  audit_log: AuditLogTable;
}
