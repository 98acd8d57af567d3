// Row types of the back-office app's tables (migrations/0021_app_sessions.sql).

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

export interface WebTables {
  app_sessions: AppSessionsTable;
  sign_in_throttle: SignInThrottleTable;
}
