import type { FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';

// What the access log keeps of a request (issue 29 §1): the method and the route's pattern
// (`/v1/customers/by-ref/:source/:external_ref`), never the URL itself — its path carries
// a company's external references and customer numbers, its query a search for a name —
// and not the client's address, port or Host (an IP address is personal data). The
// request id ties the lines of one request together; the answer's status and time are
// logged as Fastify logs them. A request that matched no route logs `route: null`.

type LoggedRequest = { method: string; route: string | null };

export const accessLogSerializers = {
  req(request: FastifyRequest): LoggedRequest {
    return { method: request.method, route: request.routeOptions?.url ?? null };
  },
  res(reply: FastifyReply): { statusCode: number } {
    return { statusCode: reply.statusCode };
  },
};

/** The server's logger options with the access log's serializers; `false` (no log) stays. */
export function loggerOptions(logger: FastifyServerOptions['logger'] | undefined, level: string): FastifyServerOptions['logger'] {
  if (logger === false) return false;
  const base = logger === undefined || logger === true ? { level } : logger;
  return { ...base, serializers: { ...(base.serializers ?? {}), ...accessLogSerializers } } as FastifyServerOptions['logger'];
}
