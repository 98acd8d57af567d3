// Why a partner's change request was refused: a code the portal and the app word in German
// and English; the message German, for logs, the command line and tests. A refusal of the
// values names each field that is wrong (`fields`: a German sentence, `problems`: its code).

export type ChangeRequestRefusal =
  /** A value is missing or wrong (see `fields`). */
  | 'invalid'
  /** What is asked for is on file already. */
  | 'unchanged'
  /** Exactly this change is pending already. */
  | 'already_requested'
  /** No such request of this partner (or company). */
  | 'not_found'
  /** The request is confirmed, rejected, superseded or withdrawn already. */
  | 'not_pending'
  /** Only an admin of the company confirms or rejects (four eyes). */
  | 'not_admin'
  /** A rejection needs its reason. */
  | 'note_missing';

export type FieldProblem =
  | 'missing'
  | 'too_long'
  | 'iban_invalid'
  | 'bic_invalid'
  | 'vat_id_invalid'
  /** A partner in Switzerland (country CH) needs a Swiss UID. */
  | 'swiss_uid_needed'
  /** A Swiss UID for a partner outside Switzerland. */
  | 'swiss_uid_elsewhere'
  | 'country_invalid'
  | 'kind_invalid';

export class ChangeRequestError extends Error {
  readonly refusal: ChangeRequestRefusal;
  /** German messages by form field (`iban`, `zip`, …). */
  readonly fields: Record<string, string>;
  readonly problems: Record<string, FieldProblem>;
  constructor(refusal: ChangeRequestRefusal, message: string, fields: Record<string, [FieldProblem, string]> = {}) {
    super(message);
    this.name = 'ChangeRequestError';
    this.refusal = refusal;
    this.fields = Object.fromEntries(Object.entries(fields).map(([field, [, text]]) => [field, text]));
    this.problems = Object.fromEntries(Object.entries(fields).map(([field, [problem]]) => [field, problem]));
  }
}
