import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { serverErrorLog } from '../shared/error-for-log.ts';
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

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

export function installErrorHandling(app: FastifyInstance) {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const appError = toAppError(error);
    if (appError) {
      if (appError.status >= 500) request.log.error(serverErrorLog(error), 'request failed');
      return sendError(reply, appError);
    }
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      // Only the framework's code: its message can quote the body ("… is not valid JSON").
      request.log.info({ code: error.code, statusCode: error.statusCode }, 'request refused by the framework');
      return sendError(reply, new AppError('malformed_body', {}, 'The request is malformed.'));
    }
    request.log.error(serverErrorLog(error), 'unexpected error');
    return sendError(reply, new AppError('internal_error'));
  });
  // A path that exists under other methods answers 405 with the methods it has.
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?', 1)[0] ?? '';
    const allowed = METHODS.filter((method) => method !== request.method && app.findRoute({ method, url: path }) !== null);
    if (allowed.length === 0) return sendError(reply, new AppError('route_not_found'));
    return sendError(reply.header('allow', allowed.join(', ')), new AppError('method_not_allowed'));
  });
}
