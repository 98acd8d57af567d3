import type { WebhookDeliveryStatus } from '../db/schema-webhooks.ts';
import { AdminError } from '../modules/access/admin-error.ts';
import { keyActor } from './api-key-commands.ts';
import { type ModuleCommand, type ParsedArgs, parseCommandArgs as parse, printResult as print, requiredFlag as required, when } from './command-kit.ts';
import { UsageError } from './io.ts';

// Loaded when a command runs, not when `kontor` starts (commands.ts).
const webhooks = () => import('../modules/webhooks/index.ts');

// `kontor admin webhook add|list|remove|deliveries|resend`. Refusals (AdminError) are
// printed as `kontor: <message>` with exit code 1 by runCommand. --by EMAIL names the
// admin who acts: the step is recorded in the audit trail as in the app (required for
// resend, a person's step only).

const optional = (value: string | boolean | undefined) => (typeof value === 'string' && value !== '' ? value : undefined);

function limitFlag(value: string | boolean | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^\d+$/.test(value)) throw new UsageError(`--limit must be a whole number, got ${String(value)}`);
  return Number(value);
}

export const WEBHOOK_COMMANDS: ModuleCommand[] = [
  {
    name: 'admin webhook add',
    usage: ['kontor admin webhook add --company ID --url URL [--events KIND,KIND] [--by EMAIL] [--json]   the signing secret is shown only now'],
    async run(args, io, ctx) {
      const { values } = parse(args, { company: { type: 'string' }, url: { type: 'string' }, events: { type: 'string' }, by: { type: 'string' } }, 0);
      const events = values.events === undefined ? [] : String(values.events).split(',');
      if (values.events !== undefined && events.every((kind) => kind.trim() === '')) throw new AdminError('--events names no event kind');
      const companyId = required(values, 'company');
      const by = optional(values.by);
      const actor = by === undefined ? undefined : await keyActor(ctx, by, companyId);
      const result = await (await webhooks()).addWebhookEndpoint(ctx.db, ctx.clock, ctx.sealer, { companyId, url: required(values, 'url'), events }, actor);
      print(io, Boolean(values.json), result, `webhook endpoint ${result.id}\nsigning secret ${result.secret}\nThe secret is shown only now. Keep it safe.`);
      return 0;
    },
  },
  {
    name: 'admin webhook list',
    usage: ['kontor admin webhook list --company ID [--json]'],
    async run(args, io, ctx) {
      const { values } = parse(args, { company: { type: 'string' } }, 0);
      const endpoints = await (await webhooks()).listWebhookEndpoints(ctx.db, required(values, 'company'));
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
    usage: ['kontor admin webhook remove ID [--by EMAIL] [--json]'],
    async run(args, io, ctx) {
      const { values, positionals } = parse(args, { by: { type: 'string' } }, 1);
      const id = positionals[0] as string;
      const by = optional(values.by);
      let actor: Awaited<ReturnType<typeof keyActor>> | undefined;
      if (by !== undefined) {
        const endpoint = await ctx.db.selectFrom('webhook_endpoints').select('company_id').where('id', '=', id).executeTakeFirst();
        if (!endpoint) throw new AdminError(`no webhook endpoint ${id}`);
        actor = await keyActor(ctx, by, endpoint.company_id);
      }
      const result = await (await webhooks()).removeWebhookEndpoint(ctx.db, ctx.clock, id, actor);
      print(io, Boolean(values.json), result, `webhook endpoint ${result.id} removed (${result.cancelled_deliveries} waiting deliveries cancelled)`);
      return 0;
    },
  },
  {
    name: 'admin webhook deliveries',
    usage: ['kontor admin webhook deliveries [ENDPOINT_ID] [--company ID] [--endpoint ID] [--event EVT] [--status S] [--limit N] [--json]   every attempt'],
    async run(args, io, ctx) {
      const options = {
        company: { type: 'string' },
        endpoint: { type: 'string' },
        event: { type: 'string' },
        status: { type: 'string' },
        limit: { type: 'string' },
      } as const;
      // The endpoint as the one argument, or as --endpoint (not both).
      let parsed: ParsedArgs;
      try {
        parsed = parse(args, options, 1);
      } catch {
        parsed = parse(args, options, 0);
      }
      const { values, positionals } = parsed;
      if (positionals[0] !== undefined && values.endpoint !== undefined) throw new UsageError('name the endpoint once: as ENDPOINT_ID or with --endpoint');
      const companyId = optional(values.company);
      const endpointId = positionals[0] ?? optional(values.endpoint);
      const eventId = optional(values.event);
      const status = optional(values.status);
      if (status !== undefined && !(await webhooks()).DELIVERY_STATUSES.includes(status as WebhookDeliveryStatus))
        throw new UsageError(`--status must be one of ${(await webhooks()).DELIVERY_STATUSES.join(', ')}, got ${status}`);
      const limit = limitFlag(values.limit);
      const deliveries = await (await webhooks()).listWebhookDeliveries(ctx.db, {
        ...(companyId ? { companyId } : {}),
        ...(endpointId ? { endpointId } : {}),
        ...(eventId ? { eventId } : {}),
        ...(status ? { status: status as WebhookDeliveryStatus } : {}),
        ...(limit !== undefined ? { limit } : {}),
      });
      const text = deliveries.length
        ? deliveries
            .map((d) =>
              [
                `#${d.id} ${d.event_id} ${d.event_type} → ${d.endpoint_id} ${d.url}: ${d.status}${d.next_attempt_at ? `, next attempt ${when(d.next_attempt_at)}` : ''}`,
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
  {
    name: 'admin webhook resend',
    usage: ['kontor admin webhook resend DELIVERY_ID --by EMAIL [--json]   send a failed delivery again now (the worker or jobs run sends it)'],
    async run(args, io, ctx) {
      const { values, positionals } = parse(args, { by: { type: 'string' } }, 1);
      const by = required(values, 'by');
      const text = positionals[0] as string;
      if (!/^\d{1,15}$/.test(text)) throw new UsageError(`DELIVERY_ID must be a delivery's number (as webhook deliveries shows it), got ${text}`);
      const deliveryId = Number(text);
      const delivery = await ctx.db.selectFrom('webhook_deliveries').select('company_id').where('id', '=', deliveryId).executeTakeFirst();
      if (!delivery) throw new AdminError(`no webhook delivery ${deliveryId}`);
      const actor = await keyActor(ctx, by, delivery.company_id);
      const result = await (await webhooks()).resendWebhookDelivery(ctx.db, ctx.clock, actor, { companyId: delivery.company_id, deliveryId });
      print(
        io,
        Boolean(values.json),
        result,
        `webhook delivery ${result.id} (${result.event_id} → ${result.endpoint_id}) is due again now; ${result.attempts_before} attempt(s) before`,
      );
      return 0;
    },
  },
];
