import { AdminError } from '../modules/access/admin-error.ts';
import { readCompanySettings } from '../modules/access/company-settings.ts';
import { actorFor, Refusal, run } from './app-action-commands.ts';
import { type ModuleCommand, parseCommandArgs as parse, printResult as print, requiredFlag as required } from './command-kit.ts';

// The company settings on the command line (the app's /app/settings, design §2):
//   kontor admin company show --company ID [--json]
//       the settings as the company file has them; of the mailbox no password, only
//       `password_stored` (which `admin company update` refuses, so a shown file fed back
//       cannot clear the stored password by accident)
//   kontor admin mailbox test --company ID --by EMAIL [--to EMAIL] [--json]
//       sends a test mail at once through the company's mailbox (admin), as the app's
//       "Testmail senden"; in the audit trail; a mail the server refuses exits 1 with its answer
// `admin company update` and `admin period lock` take --by EMAIL too (commands.ts, period-commands.ts).

const line = (key: string, value: unknown): string => `${key}: ${value === null ? '-' : Array.isArray(value) ? value.join(', ') || '-' : String(value)}`;

export const SETTINGS_COMMANDS: ModuleCommand[] = [
  {
    name: 'admin company show',
    usage: ['kontor admin company show --company ID [--json]   the company settings as the company file has them (no SMTP password)'],
    async run(args, io, ctx) {
      const { values } = parse(args, { company: { type: 'string' } }, 0);
      const companyId = required(values, 'company');
      return run(io, async () => {
        const settings = await readCompanySettings(ctx.db, companyId);
        const { smtp, dunning, ...plain } = settings;
        const text = [
          ...Object.entries(plain).map(([key, value]) => line(key, value)),
          smtp
            ? `smtp: ${smtp.host}:${smtp.port}${smtp.secure ? ' (TLS)' : ''}, user ${smtp.user ?? '-'}, from ${smtp.from}, password ${smtp.password_stored ? 'stored (not shown)' : 'none'}`
            : 'smtp: - (mails go to the outbox folder)',
          dunning ? `dunning: ${JSON.stringify(dunning)}` : 'dunning: - (the defaults)',
        ].join('\n');
        print(io, Boolean(values.json), settings, text);
        return 0;
      }, [AdminError]);
    },
  },
  {
    name: 'admin mailbox test',
    usage: ['kontor admin mailbox test --company ID --by EMAIL [--to EMAIL] [--json]   send a test mail now through the company mailbox (admin)'],
    async run(args, io, ctx) {
      const { values } = parse(args, { company: { type: 'string' }, by: { type: 'string' }, to: { type: 'string' } }, 0);
      const companyId = required(values, 'company');
      const by = required(values, 'by');
      // The mailer is loaded only for this command, not when `kontor` starts (commands.ts).
      const { sendTestMail, TestMailRefused } = await import('../modules/access/send-test-mail.ts');
      const { createMailer } = await import('../modules/mail/index.ts');
      return run(io, async () => {
        const actor = await actorFor(ctx, by, companyId, true);
        const own = ctx.mailer ? null : createMailer({ dataDir: ctx.dataDir ?? ctx.cwd, sealer: ctx.sealer });
        try {
          const result = await sendTestMail({ db: ctx.db, clock: ctx.clock, mailer: ctx.mailer ?? (own as NonNullable<typeof own>) }, actor, {
            companyId,
            to: typeof values.to === 'string' ? values.to : null,
          });
          if (!result.ok) throw new Refusal(`the test mail was not sent (${result.error.code}): ${result.error.message}`);
          print(
            io,
            Boolean(values.json),
            result,
            result.via === 'smtp'
              ? `test mail to ${result.to} sent through ${result.server}`
              : `no SMTP mailbox: test mail to ${result.to} written to ${result.path}`,
          );
          return 0;
        } finally {
          own?.close();
        }
      }, [AdminError, TestMailRefused]);
    },
  },
];
