import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, type ErrorCode, validationFailed } from '../shared/errors.ts';
import { toValidationIssues } from './validation.ts';

// The one place that renders refusals: {detail: {code, message, ...fields}}. A 500 says
// nothing about internals and is logged with the request id.

export function sendError(reply: FastifyReply, error: AppError) {
  return reply
    .code(error.status)
    .type('application/json; charset=utf-8')
    .send({ detail: { code: error.code, message: error.message, ...error.fields } });
}

const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'malformed_body',
  FST_ERR_CTP_INVALID_JSON_BODY: 'malformed_body',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'malformed_body',
};

export function toAppError(error: FastifyError | Error): AppError | undefined {
  if (error instanceof AppError) return error;
  const fastifyError = error as FastifyError & { validationContext?: string };
  if (fastifyError.validation) {
    return validationFailed(toValidationIssues(fastifyError.validation as never, fastifyError.validationContext ?? 'body'));
  }
  const mapped = fastifyError.code ? FASTIFY_CODES[fastifyError.code] : undefined;
  if (mapped) return new AppError(mapped);
  // JSON parse errors (and prototype poisoning) surface as 400 SyntaxErrors.
  if (fastifyError.statusCode === 400 && (error instanceof SyntaxError || /JSON|__proto__|constructor/i.test(error.message))) {
    return new AppError('malformed_body');
  }
  if (fastifyError.statusCode === 413) return new AppError('payload_too_large');
  if (fastifyError.statusCode === 415) return new AppError('unsupported_media_type');
  return undefined;
}

/** Longest cause message logged; the thrower should have kept it short already. */
const CAUSE_MESSAGE_LIMIT = 300;

/**
 * What a refusal with status 500 logs: the error, and the cause its thrower attached
 * (`error.cause`, e.g. why an invoice could not be rendered: invoicing/render-failure.ts)
 * as its class, message (cut short), stack frames and its own plain fields (the invoice number).
 * The thrower makes the cause fit for the log, without personal data; the answer carries
 * none of it. Without a cause the error is logged as before.
 */
function serverErrorLog(error: Error): Record<string, unknown> {
  const { cause } = error;
  if (!(cause instanceof Error)) return { err: error };
  const fields: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(cause)) {
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') fields[key] = value;
  }
  const message = cause.message.length > CAUSE_MESSAGE_LIMIT ? `${cause.message.slice(0, CAUSE_MESSAGE_LIMIT)}…` : cause.message;
  return {
    // Not the error object itself: the log serializer would append the cause's message and stack unchecked.
    err: { type: error.constructor.name, message: error.message, stack: error.stack, ...(error instanceof AppError ? { code: error.code } : {}) },
    // The stack's code locations only: its first line repeats the message uncut.
    cause: {
      ...fields,
      type: cause.name,
      message,
      stack: (cause.stack ?? '')
        .split('\n')
        .filter((line) => /^\s+at /.test(line))
        .join('\n'),
    },
  };
}

export function installErrorHandling(app: FastifyInstance) {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const appError = toAppError(error);
    if (appError) {
      if (appError.status >= 500) request.log.error(serverErrorLog(error), 'request failed');
      return sendError(reply, appError);
    }
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      request.log.info({ err: error }, 'request refused by the framework');
      return sendError(reply, new AppError('malformed_body', {}, 'The request is malformed.'));
    }
    request.log.error({ err: error }, 'unexpected error');
    return sendError(reply, new AppError('internal_error'));
  });
  app.setNotFoundHandler((_request, reply) => sendError(reply, new AppError('route_not_found')));
}
