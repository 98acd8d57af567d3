// Refusals of the Mahnsperre and of "Erinnerung jetzt senden" (issue 25): a German sentence
// for the command line and the values the app words in its language.

export type DunningActionRefusal =
  | 'invoice_not_found'
  | 'customer_not_found'
  | 'stop_not_found'
  | 'reason_missing'
  | 'reason_too_long'
  | 'invoice_closed'
  | 'not_overdue'
  | 'stopped'
  | 'dunning_disabled'
  | 'last_level'
  | 'too_early';

export class DunningActionError extends Error {
  readonly code: DunningActionRefusal;
  readonly values: Record<string, string>;
  constructor(code: DunningActionRefusal, message: string, values: Record<string, string> = {}) {
    super(message);
    this.name = 'DunningActionError';
    this.code = code;
    this.values = values;
  }
}

export const REASON_MAX = 500;

/** The reason of a stop, trimmed; refused when empty or longer than 500 characters. */
export function stopReason(raw: string | undefined | null): string {
  const reason = (raw ?? '').trim();
  if (reason === '') throw new DunningActionError('reason_missing', 'Bitte geben Sie einen Grund für die Mahnsperre an.');
  if (reason.length > REASON_MAX)
    throw new DunningActionError('reason_too_long', `Der Grund ist zu lang (höchstens ${REASON_MAX} Zeichen).`, { max: String(REASON_MAX) });
  return reason;
}
