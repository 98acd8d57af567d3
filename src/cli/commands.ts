import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { localLiveness } from '../db/liveness.ts';
import { migrate, pendingMigrations } from '../db/migrate.ts';
import { AdminError } from '../modules/access/admin-error.ts';
import { fixedClock } from '../shared/clock.ts';
import { type CommandContext, dateFlag, parseCommandArgs as parse, printResult as print, requiredFlag as required } from './command-kit.ts';
import { type CommandIo, UsageError } from './io.ts';
import { MODULE_COMMANDS } from './module-commands.ts';

export type { CommandContext } from './command-kit.ts';

// The modules a command needs are loaded when it runs, not when `kontor` starts: a command
// process then reads the few hundred files it uses instead of all ~1,500 of the service
// (about 0.8 s of CPU less for every command, and for one forwarded to a running server).
const access = () => import('../modules/access/index.ts');

// Every command except serve and worker: run directly on a database, or by a running
// server on behalf of a command line (control-socket.ts). Output on stdout is the
// result only (with --json, one JSON document); everything else goes to stderr.

// Each command with its usage lines (without the leading `kontor `): `kontor --help`
// shows them all, `kontor <words> --help` those whose command starts with the words.
const CORE_USAGE: { name: string; usage: string[] }[] = [
  { name: 'serve', usage: ['serve [--port 8080] [--host 127.0.0.1] [--data DIR]   API, app, scheduler and worker'] },
  { name: 'worker', usage: ['worker [--data DIR]                                     worker and scheduler only'] },
  {
    name: 'migrate',
    usage: ['migrate [--data DIR] [--dry-run] [--json]                apply database migrations (--dry-run: say which would be applied, change nothing)'],
  },
  { name: 'admin bootstrap', usage: ['admin bootstrap --org NAME --company-file FILE --admin-email E [--scopes S,S] [--json]'] },
  {
    name: 'admin api-key create',
    usage: ['admin api-key create --company ID (--creator EMAIL | --by EMAIL) [--scopes S,S] [--expires YYYY-MM-DD] [--all-companies] [--json]'],
  },
  { name: 'admin api-key revoke', usage: ['admin api-key revoke ID [--by EMAIL] [--json]'] },
  { name: 'admin user deactivate', usage: ['admin user deactivate EMAIL [--json]'] },
  { name: 'admin user set-role', usage: ['admin user set-role EMAIL admin|member [--json]'] },
  { name: 'admin user remove-company', usage: ['admin user remove-company EMAIL COMPANY_ID [--json]'] },
  { name: 'admin company update', usage: ['admin company update --company ID --company-file FILE [--by EMAIL] [--json]'] },
  { name: 'jobs run', usage: ['jobs run [--as-of YYYY-MM-DD] [--company ID] [--json]'] },
  {
    name: 'export datev',
    usage: ['export datev --company ID --from YYYY-MM-DD --to YYYY-MM-DD [--out FILE] [--by EMAIL] [--json]   DATEV Buchungsstapel CSV'],
  },
];

const ALL_USAGE = [...CORE_USAGE, ...MODULE_COMMANDS.map(({ name, usage }) => ({ name, usage: usage.map((line) => line.replace(/^kontor /, '')) }))];

const ENVIRONMENT = `Environment: DATABASE_URL (PostgreSQL server; unset = embedded database in --data / KONTOR_DATA, default ./data),
PORT, KONTOR_HOST, LOG_LEVEL, KONTOR_NOW, KONTOR_SECRET_KEY, KONTOR_WORKER=off, KONTOR_RENDER_THREADS,
KONTOR_BASE_RATES_FILE (Basiszinssatz additions), KONTOR_EVENT_RETENTION_DAYS (webhook history, default 90),
KONTOR_TRUST_PROXY (off | proxy addresses/CIDRs | true: whose X-Forwarded-* count),
KONTOR_DEBUG=1 (a stack trace with an unexpected error).`;

const usageLines = (commands: typeof ALL_USAGE) => commands.flatMap((command) => command.usage.map((line) => `  kontor ${line}\n`)).join('');

export const USAGE = `kontor — invoicing and revenue share for German companies

Usage:
${usageLines(ALL_USAGE)}  kontor [COMMAND] --help                                 the usage of a command or group (kontor admin --help)
  kontor --version

${ENVIRONMENT}`;

const leadingWords = (argv: string[]) => {
  const end = argv.findIndex((word) => word.startsWith('-'));
  return argv.slice(0, end < 0 ? argv.length : end);
};

/**
 * The words of a command line that asks for help (`kontor admin api-key --help`,
 * `kontor help bank import`); undefined when it does not.
 */
function helpRequest(argv: string[]): string[] | undefined {
  if (argv[0] === 'help') return leadingWords(argv.slice(1));
  return argv.includes('--help') || argv.includes('-h') ? leadingWords(argv) : undefined;
}

/** The usage (with the environment) of the commands that start with `words`; all of them for no words. */
function usageFor(words: string[]): string | undefined {
  if (words.length === 0) return USAGE;
  const lines = usageLinesFor(words);
  return lines && `Usage:\n${lines}\n${ENVIRONMENT}`;
}

/**
 * The usage lines of the commands that start with `words`. Words after a whole command
 * name are its arguments (`admin api-key revoke ID`). Undefined when no command fits.
 */
function usageLinesFor(words: string[]): string | undefined {
  for (let n = words.length; n > 0; n--) {
    const prefix = words.slice(0, n);
    const matching = ALL_USAGE.filter(({ name }) => prefix.every((word, i) => name.split(' ')[i] === word));
    if (matching.length === 0) continue;
    if (n < words.length && !matching.some(({ name }) => name === prefix.join(' '))) return undefined;
    return usageLines(matching);
  }
  return undefined;
}

async function readCompanyFile(ctx: CommandContext, file: string): Promise<string> {
  try {
    return await readFile(path.resolve(ctx.cwd, file), 'utf8');
  } catch (error) {
    throw new AdminError(`cannot read the company file ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

/**
 * Answers what needs no database: a request for help (exit 0), and a command line that
 * names no command (exit 2). Undefined when the command is to run.
 */
export function answerUsage(argv: string[], io: CommandIo): number | undefined {
  const words = helpRequest(argv);
  if (words) {
    const usage = usageFor(words);
    if (usage) io.out(usage);
    else io.err(`kontor: unknown command: ${words.join(' ')}\n\n${USAGE}`);
    return usage ? 0 : 2;
  }
  const leading = leadingWords(argv);
  if (ALL_USAGE.some(({ name }) => name.split(' ').every((word, i) => leading[i] === word))) return undefined;
  const lines = usageLinesFor(leading);
  if (lines) io.err(`kontor: ${leading.join(' ')} needs one of these commands:\n\nUsage:\n${lines}`);
  else io.err(`kontor: ${argv.length ? `unknown command: ${argv.join(' ')}` : 'no command given'}\n\n${USAGE}`);
  return 2;
}

/** Runs one command; returns the exit code (0 done, 1 refused, 2 usage). */
export async function runCommand(argv: string[], io: CommandIo, ctx: CommandContext): Promise<number> {
  const answered = answerUsage(argv, io);
  if (answered !== undefined) return answered;
  try {
    return await dispatch(argv, io, ctx);
  } catch (error) {
    if (error instanceof UsageError) {
      const lines = usageLinesFor(leadingWords(argv));
      io.err(`kontor: ${error.message}\n\n${lines ? `Usage:\n${lines}` : USAGE}`);
      return 2;
    }
    if (error instanceof AdminError || error instanceof (await access()).CompanyFileError) {
      io.err(`kontor: ${error.message}`);
      return 1;
    }
    throw error;
  }
}

const COMMANDS = [
  'migrate',
  'admin bootstrap',
  'admin api-key create',
  'admin api-key revoke',
  'admin user deactivate',
  'admin user set-role',
  'admin user remove-company',
  'admin company update',
  'jobs run',
  'export datev',
] as const;

async function dispatch(argv: string[], io: CommandIo, ctx: CommandContext): Promise<number> {
  const command = COMMANDS.find((name) => name.split(' ').every((word, i) => argv[i] === word));
  switch (command) {
    case 'migrate': {
      const { values } = parse(argv.slice(1), { 'dry-run': { type: 'boolean' } }, 0);
      if (values['dry-run']) {
        const pending = await pendingMigrations(ctx.db);
        const text = pending.length
          ? [
              `${pending.length} migration(s) would be applied, each in its own transaction:`,
              ...pending.flatMap((m) => [`${m.version}${m.about ? ` — ${m.about}` : ''}`, ...m.statements.map((statement) => `  ${statement}`)]),
            ].join('\n')
          : 'migrations are up to date; nothing would change';
        print(io, Boolean(values.json), { pending }, text);
        return 0;
      }
      const applied = await migrate(ctx.db);
      print(io, Boolean(values.json), { applied }, applied.length ? `applied ${applied.join(', ')}` : 'migrations are up to date');
      return 0;
    }
    case 'admin bootstrap': {
      const { values } = parse(
        argv.slice(2),
        { org: { type: 'string' }, 'company-file': { type: 'string' }, 'admin-email': { type: 'string' }, scopes: { type: 'string' } },
        0,
      );
      const { bootstrapOrganization, parseScopes } = await access();
      const result = await bootstrapOrganization(ctx.db, ctx.sealer, {
        organizationName: required(values, 'org'),
        companyFile: await readCompanyFile(ctx, required(values, 'company-file')),
        adminEmail: required(values, 'admin-email'),
        scopes: parseScopes(values.scopes as string | undefined),
      });
      print(
        io,
        Boolean(values.json),
        result,
        [
          `organisation ${result.organization_id}`,
          `company      ${result.company_id}`,
          `admin user   ${result.user_id} (one-time password: ${result.user_password})`,
          `API key      ${result.api_key}`,
          '',
          'The password and the key are shown only now. Keep them safe.',
        ].join('\n'),
      );
      return 0;
    }
    case 'admin api-key create': {
      const { values } = parse(
        argv.slice(3),
        {
          company: { type: 'string' },
          creator: { type: 'string' },
          scopes: { type: 'string' },
          expires: { type: 'string' },
          'all-companies': { type: 'boolean' },
          by: { type: 'string' },
        },
        0,
      );
      // --by names the admin who acts (the audit row, as in the app); the creator defaults to them.
      const companyId = required(values, 'company');
      const by = typeof values.by === 'string' && values.by !== '' ? values.by : undefined;
      const creator = typeof values.creator === 'string' && values.creator !== '' ? values.creator : by;
      if (creator === undefined) throw new UsageError('--creator is required');
      const { keyActor } = await import('./api-key-commands.ts');
      const actor = by === undefined ? undefined : await keyActor(ctx, by, companyId);
      const { createApiKey, parseScopes } = await access();
      const result = await createApiKey(
        ctx.db,
        ctx.clock,
        {
          companyId,
          creatorEmail: creator,
          scopes: parseScopes(values.scopes as string | undefined),
          ...(typeof values.expires === 'string' ? { expiresOn: values.expires } : {}),
          allCompanies: Boolean(values['all-companies']),
        },
        actor,
      );
      print(io, Boolean(values.json), result, `API key ${result.id}: ${result.api_key}\nThe key is shown only now.`);
      return 0;
    }
    case 'admin api-key revoke': {
      const { values, positionals } = parse(argv.slice(3), { by: { type: 'string' } }, 1);
      const id = positionals[0] as string;
      // --by: an admin of the key's company revokes it, recorded in the audit trail as in the app.
      const { revokeActor } = await import('./api-key-commands.ts');
      const by = typeof values.by === 'string' && values.by !== '' ? await revokeActor(ctx, values.by, id) : {};
      const { revokeApiKey } = await access();
      const result = await revokeApiKey(ctx.db, ctx.clock, id, by);
      ctx.onKeyRevoked?.();
      print(io, Boolean(values.json), result, `API key ${result.id} revoked at ${result.revoked_at}`);
      return 0;
    }
    case 'admin user deactivate': {
      const { values, positionals } = parse(argv.slice(3), {}, 1);
      const { deactivateUser } = await access();
      const result = await deactivateUser(ctx.db, ctx.clock, positionals[0] as string);
      print(io, Boolean(values.json), result, `user ${positionals[0]} deactivated`);
      return 0;
    }
    case 'admin user set-role': {
      const { values, positionals } = parse(argv.slice(3), {}, 2);
      const { setUserRole } = await access();
      const result = await setUserRole(ctx.db, ctx.clock, positionals[0] as string, positionals[1] as string);
      print(io, Boolean(values.json), result, `user ${positionals[0]} is now ${result.role}`);
      return 0;
    }
    case 'admin user remove-company': {
      const { values, positionals } = parse(argv.slice(3), {}, 2);
      const { removeCompanyAccess } = await access();
      const result = await removeCompanyAccess(ctx.db, positionals[0] as string, positionals[1] as string);
      print(io, Boolean(values.json), result, `user ${positionals[0]} no longer reaches company ${positionals[1]}`);
      return 0;
    }
    case 'admin company update': {
      const { values } = parse(argv.slice(3), { company: { type: 'string' }, 'company-file': { type: 'string' }, by: { type: 'string' } }, 0);
      const companyId = required(values, 'company');
      // --by EMAIL: the admin who changes the settings, recorded in the audit trail as in the app.
      const { actorFor, Refusal } = await import('./app-action-commands.ts');
      let actor: Awaited<ReturnType<typeof actorFor>> | undefined;
      try {
        actor = typeof values.by === 'string' && values.by !== '' ? await actorFor(ctx, values.by, companyId, true) : undefined;
      } catch (error) {
        if (!(error instanceof Refusal)) throw error;
        io.err(`kontor: ${error.message}`);
        return 1;
      }
      const { updateCompany } = await access();
      const result = await updateCompany(
        ctx.db,
        ctx.clock,
        ctx.sealer,
        companyId,
        await readCompanyFile(ctx, required(values, 'company-file')),
        actor ? { actor } : {},
      );
      print(io, Boolean(values.json), result, `company ${result.company_id} updated: ${result.updated.join(', ') || 'nothing'}`);
      return 0;
    }
    case 'jobs run': {
      const { values } = parse(argv.slice(2), { 'as-of': { type: 'string' }, company: { type: 'string' } }, 0);
      const asOf = values['as-of'] as string | undefined;
      if (asOf !== undefined) dateFlag(asOf, 'as-of');
      // --as-of runs the day's work as if it were noon UTC of that day.
      const clock = asOf ? fixedClock(`${asOf}T12:00:00Z`) : ctx.clock;
      // Registers the contract billing, overdue/dunning daily tasks and their jobs; loaded
      // here, not at start, so that other commands do not load the PDF renderers.
      await import('../modules/contracts/index.ts');
      await import('../modules/dunning/index.ts');
      await import('../modules/statements/index.ts');
      await import('../modules/portal/index.ts');
      const { runDueWork } = await import('../jobs/index.ts');
      const { webhookDelivery } = await import('../modules/webhooks/index.ts');
      const { createMailer } = await import('../modules/mail/index.ts');
      const ownMailer = !ctx.mailer && ctx.dataDir ? createMailer({ dataDir: ctx.dataDir, sealer: ctx.sealer }) : undefined;
      const mailer = ctx.mailer ?? ownMailer;
      // The renderers, booking and mailboxes the billing run needs: the server's, or this process's own.
      const { defaultRenderThreads, invoicingOutside } = await import('../modules/invoicing/outside.ts');
      const ownInvoicing =
        !ctx.invoicing && ctx.dataDir && mailer
          ? invoicingOutside({ dataDir: ctx.dataDir, sealer: ctx.sealer, mailer, renderThreads: defaultRenderThreads(false) })
          : undefined;
      const invoicing = ctx.invoicing ?? (ownInvoicing ? { ...ownInvoicing, liveness: ctx.liveness ?? localLiveness() } : undefined);
      // What the run logs (a stale Basiszinssatz, a task or job that failed) is shown, not
      // dropped: on stderr as it happens to be read, and in the summary as `warnings`.
      const warnings: string[] = [];
      const summary = await runDueWork(
        {
          db: ctx.db,
          clock,
          webhooks: webhookDelivery({ db: ctx.db, sealer: ctx.sealer }),
          ...(mailer ? { mailer } : {}),
          services: { ...(invoicing ? { invoicing } : {}), portal: { sealer: ctx.sealer } },
          ...(ctx.liveness ? { liveness: ctx.liveness } : {}),
        },
        {
          ...(asOf ? { asOf } : {}),
          ...(typeof values.company === 'string' ? { companyId: values.company } : {}),
          log: (message) => warnings.push(message),
        },
      ).finally(async () => {
        await ownInvoicing?.close();
        ownMailer?.close();
      });
      for (const warning of warnings) io.err(`kontor: ${warning}`);
      const result = { ...summary, warnings };
      print(io, Boolean(values.json), result, JSON.stringify(result, null, 2));
      return 0;
    }
    case 'export datev': {
      const { values } = parse(
        argv.slice(2),
        { company: { type: 'string' }, from: { type: 'string' }, to: { type: 'string' }, out: { type: 'string' }, by: { type: 'string' } },
        0,
      );
      const companyId = required(values, 'company');
      const from = dateFlag(required(values, 'from'), 'from');
      const to = dateFlag(required(values, 'to'), 'to');
      const out = typeof values.out === 'string' && values.out !== '' ? values.out : `EXTF_Buchungsstapel_${from}_${to}.csv`;
      const file = path.resolve(ctx.cwd, out);
      const { BookkeepingError, createDatevExport } = await import('../modules/bookkeeping/index.ts');
      let result: Awaited<ReturnType<typeof createDatevExport>>;
      // --by EMAIL: the person who exports (a member or admin of the company), in the audit trail as in the app.
      const { actorFor, Refusal } = await import('./app-action-commands.ts');
      try {
        const actor = typeof values.by === 'string' && values.by !== '' ? await actorFor(ctx, values.by, companyId, false) : undefined;
        result = await createDatevExport(ctx.db, companyId, { from, to, now: ctx.clock.now(), ...(actor ? { actor } : {}) });
      } catch (error) {
        if (error instanceof Refusal) {
          io.err(`kontor: ${error.message}`);
          return 1;
        }
        if (!(error instanceof BookkeepingError)) throw error;
        io.err(`kontor: ${error.message}`);
        return 1;
      }
      try {
        await writeFile(file, result.file);
      } catch (error) {
        io.err(`kontor: cannot write ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
        return 1;
      }
      for (const warning of result.warnings) io.err(`kontor: warning: ${warning}`);
      print(io, Boolean(values.json), { file, bookings: result.bookings, warnings: result.warnings }, `${file}\n${result.bookings} booking(s)`);
      return 0;
    }
    default: {
      const extra = MODULE_COMMANDS.find((candidate) => candidate.name.split(' ').every((word, i) => argv[i] === word));
      if (extra) return extra.run(argv.slice(extra.name.split(' ').length), io, ctx);
      throw new UsageError(argv.length ? `unknown command: ${argv.join(' ')}` : 'no command given');
    }
  }
}
