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
  user_id: string;
  at: Date;
  action: string;
  subject_type: string;
  subject_id: string | null;
  before: unknown;
  after: unknown;
}

export interface WebTables {
  app_sessions: AppSessionsTable;
  sign_in_throttle: SignInThrottleTable;
  audit_log: AuditLogTable;
}
