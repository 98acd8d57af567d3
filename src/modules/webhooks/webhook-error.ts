import { AdminError } from '../access/admin-error.ts';

// A refused webhook step of a person: `code` for the app (German text), the message (English)
// for the command line, which prints AdminErrors as `kontor: <message>`.

export type WebhookErrorCode = 'endpoint_unknown' | 'endpoint_removed' | 'delivery_unknown' | 'not_resendable';

export class WebhookError extends AdminError {
  readonly code: WebhookErrorCode;
  constructor(code: WebhookErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}
