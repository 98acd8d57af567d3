import { AdminError } from '../modules/access/admin-error.ts';
import { addWebhookEndpoint, listWebhookDeliveries, listWebhookEndpoints, removeWebhookEndpoint } from '../modules/webhooks/index.ts';
import { type ModuleCommand, parseCommandArgs as parse, printResult as print, requiredFlag as required, when } from './command-kit.ts';
import { UsageError } from './io.ts';

// `kontor admin webhook add|list|remove|deliveries`. Refusals (AdminError) are printed
// as `kontor: <message>` with exit code 1 by runCommand.

const optional = (value: string | boolean | undefined) => (typeof value === 'string' && value !== '' ? value : undefined);

function limitFlag(value: string | boolean | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^\d+$/.test(value)) throw new UsageError(`--limit must be a whole number, got ${String(value)}`);
  return Number(value);
}

export const WEBHOOK_COMMANDS: ModuleCommand[] = [
  {
    name: 'admin webhook add',
    usage: ['kontor admin webhook add --company ID --url URL [--events KIND,KIND] [--json]   the signing secret is shown only now'],
    async run(args, io, ctx) {
      const { values } = parse(args, { company: { type: 'string' }, url: { type: 'string' }, events: { type: 'string' } }, 0);
      const events = values.events === undefined ? [] : String(values.events).split(',');
      if (values.events !== undefined && events.every((kind) => kind.trim() === '')) throw new AdminError('--events names no event kind');
      const result = await addWebhookEndpoint(ctx.db, ctx.clock, ctx.sealer, {
        companyId: required(values, 'company'),
        url: required(values, 'url'),
        events,
      });
      print(io, Boolean(values.json), result, `webhook endpoint ${result.id}\nsigning secret ${result.secret}\nThe secret is shown only now. Keep it safe.`);
      return 0;
    },
  },
  {
    name: 'admin webhook list',
    usage: ['kontor admin webhook list --company ID [--json]'],
    async run(args, io, ctx) {
      const { values } = parse(args, { company: { type: 'string' } }, 0);
      const endpoints = await listWebhookEndpoints(ctx.db, required(values, 'company'));
      const text = endpoints.length
        ? endpoints
            .map(
              (e) =>
                `${e.id}  ${e.status}${e.failing_since ? ` since ${when(e.failing_since)}` : ''}  ${e.url}  ${e.events.length ? e.events.join(',') : 'all events'}`,
            )
            .join('\n')
        : 'no webhook endpoints';
      print(io, Boolean(values.json), { endpoints }, text);
      return 0;
    },
  },
  {
    name: 'admin webhook remove',
    usage: ['kontor admin webhook remove ID [--json]'],
    async run(args, io, ctx) {
      const { values, positionals } = parse(args, {}, 1);
      const result = await removeWebhookEndpoint(ctx.db, ctx.clock, positionals[0] as string);
      print(io, Boolean(values.json), result, `webhook endpoint ${result.id} removed (${result.cancelled_deliveries} waiting deliveries cancelled)`);
      return 0;
    },
  },
  {
    name: 'admin webhook deliveries',
    usage: ['kontor admin webhook deliveries [--company ID] [--endpoint ID] [--event EVT] [--limit N] [--json]   every attempt'],
    async run(args, io, ctx) {
      const { values } = parse(args, { company: { type: 'string' }, endpoint: { type: 'string' }, event: { type: 'string' }, limit: { type: 'string' } }, 0);
      const companyId = optional(values.company);
      const endpointId = optional(values.endpoint);
      const eventId = optional(values.event);
      const limit = limitFlag(values.limit);
      const deliveries = await listWebhookDeliveries(ctx.db, {
        ...(companyId ? { companyId } : {}),
        ...(endpointId ? { endpointId } : {}),
        ...(eventId ? { eventId } : {}),
        ...(limit !== undefined ? { limit } : {}),
      });
      const text = deliveries.length
        ? deliveries
            .map((d) =>
              [
                `${d.event_id} ${d.event_type} → ${d.endpoint_id} ${d.url}: ${d.status}${d.next_attempt_at ? `, next attempt ${when(d.next_attempt_at)}` : ''}`,
                ...d.attempts.map(
                  (a) =>
                    `  #${a.attempt} ${when(a.started_at)} ${a.response_status ?? '---'} ${a.duration_ms === null ? '' : `${a.duration_ms} ms`}${a.error ? ` ${a.error}` : ''}`,
                ),
              ].join('\n'),
            )
            .join('\n')
        : 'no webhook deliveries';
      print(io, Boolean(values.json), { deliveries }, text);
      return 0;
    },
  },
];
