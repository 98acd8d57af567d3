import { randomBytes } from 'node:crypto';
import type { Database } from '../../db/connection.ts';
import type { Clock } from '../../shared/clock.ts';
import type { Sealer } from '../../shared/secrets.ts';

// A secret shown once (issue 25 §3: a new API key, a webhook's signing secret, an invited
// person's one-time password) by Post/Redirect/Get: the POST that made it stores it sealed
// for its own session (app_secret_displays) and redirects to the page with the display's
// random id (never the secret) in the URL; that GET takes it out (deleted as it is read),
// so a reload — or the same URL in another session — shows it no more, and creates nothing.

/** How long a display waits for its GET (a redirect follows at once). */
const WAIT_MS = 10 * 60 * 1000;
export const DISPLAY_ID = /^[A-Za-z0-9_-]{22}$/;

type Deps = { db: Database; clock: Clock; sealer: Sealer };

/** Stores a secret for one display in this session; returns the display's id for the redirect. */
export async function storeForDisplay(deps: Deps, sessionId: string, kind: string, value: unknown): Promise<string> {
  const id = randomBytes(16).toString('base64url');
  const now = deps.clock.now();
  await deps.db
    .insertInto('app_secret_displays')
    .values({ id, session_id: sessionId, kind, sealed: deps.sealer.seal(JSON.stringify(value)), created_at: now })
    .execute();
  await deps.db
    .deleteFrom('app_secret_displays')
    .where('created_at', '<', new Date(now.getTime() - WAIT_MS))
    .execute();
  return id;
}

/** The secret of a display, taken out as it is read; null when it was shown before (or never was this session's). */
export async function takeForDisplay<T>(deps: Deps, sessionId: string, kind: string, id: string | undefined): Promise<T | null> {
  if (!id || !DISPLAY_ID.test(id)) return null;
  const row = await deps.db
    .deleteFrom('app_secret_displays')
    .where('id', '=', id)
    .where('session_id', '=', sessionId)
    .where('kind', '=', kind)
    .where('created_at', '>=', new Date(deps.clock.now().getTime() - WAIT_MS))
    .returning('sealed')
    .executeTakeFirst();
  return row ? (JSON.parse(deps.sealer.open(row.sealed)) as T) : null;
}
