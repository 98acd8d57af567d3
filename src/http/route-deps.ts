import type { Database } from '../db/connection.ts';
import type { Clock } from '../shared/clock.ts';

/** What a module's routes get from the app. */
export type RouteDeps = { db: Database; clock: Clock };
