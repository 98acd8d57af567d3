import { existsSync } from 'node:fs';
import path from 'node:path';
import { buildApp } from '../app.ts';
import { type Config, instanceSecret } from '../config.ts';
import { createAuthenticator } from '../http/auth.ts';
import { createMetrics, serveMetrics } from '../http/metrics.ts';
import { startWorker } from '../jobs/index.ts';
import '../modules/contracts/index.ts'; // registers the contract billing run (daily task and jobs)
import '../modules/dunning/index.ts'; // registers the overdue/dunning daily tasks and the notice job
import '../modules/statements/index.ts'; // registers the statement run (daily task and jobs)
import '../modules/portal/index.ts'; // registers the job that mails partner invitations
import { defaultRenderThreads, invoicingOutside } from '../modules/invoicing/outside.ts';
import { loadRenderers } from '../modules/invoicing/render/renderers.ts';
import { createMailer } from '../modules/mail/index.ts';
import { webhookDelivery } from '../modules/webhooks/index.ts';
import { createClock } from '../shared/clock.ts';
import { createSealer } from '../shared/secrets.ts';
import { runCommand } from './commands.ts';
import { startControlSocket } from './control-socket.ts';
import { bufferIo, type CommandIo } from './io.ts';
import { openConfiguredDatabase } from './open-database.ts';

// The steps of the README's "First steps", with the paths as seen from where serve runs.
function firstRunHint(config: Config): string {
  const data = config.databaseUrl || config.dataDir === path.join(process.cwd(), 'data') ? '' : ` --data ${config.dataDir}`;
  const example = [path.join(import.meta.dirname, '../../docs'), path.join(import.meta.dirname, '../../../docs')]
    .map((docs) => path.join(docs, 'company.example.json'))
    .find((file) => existsSync(file));
  const exampleFile = example ? path.relative(process.cwd(), example) : 'docs/company.example.json';
  return [
    'Kontor has no company yet. In a second terminal, create the organisation, its admin, the first company and an API key:',
    '',
    `  cp ${exampleFile} company.json        # then put your issuing details into company.json`,
    `  npx kontor admin bootstrap --org "Muster GmbH" --company-file company.json --admin-email admin@example.com${data} --json`,
  ].join('\n');
}

/** `kontor serve` (API, app, scheduler, worker) and `kontor worker` (worker and scheduler only). */
export async function serve(argv: string[], config: Config, io: CommandIo): Promise<number> {
  const withHttp = argv[0] === 'serve';
  const handle = await openConfiguredDatabase(config);
  const clock = createClock(config.now);
  const sealer = createSealer(instanceSecret(config));
  const authenticator = createAuthenticator(handle.db, clock);
  // Render threads: an invoice renders there while the issuing transaction does its
  // database work on the main thread (early-render.ts), and the event loop stays free.
  const renderThreads = config.renderThreads ?? defaultRenderThreads(withHttp);
  // One mailer for all of the process's mail (invoices, dunning notices): one pooled
  // connection per company mailbox.
  const mailer = createMailer({ dataDir: config.dataDir, sealer });
  // Metrics only where the operator asked for them, on a port of their own (http/metrics.ts).
  const metrics = config.metricsPort === undefined ? undefined : createMetrics(handle.db, handle.poolStats);
  const invoicing = invoicingOutside({
    dataDir: config.dataDir,
    sealer,
    renderThreads,
    mailer,
    ...(metrics ? { onRendered: (seconds: number) => metrics.observeRender(seconds) } : {}),
  });
  const app = withHttp
    ? await buildApp({
        db: handle.db,
        clock,
        config,
        trustProxy: config.trustProxy,
        authenticator,
        sealer,
        mailer,
        invoicing: { ...invoicing, liveness: handle.liveness },
        ...(metrics ? { metrics } : {}),
      })
    : undefined;
  const control =
    handle.kind === 'pglite'
      ? await startControlSocket(config.dataDir, async ({ argv: forwarded, cwd }) => {
          if (forwarded[0] === 'serve' || forwarded[0] === 'worker')
            return { stdout: '', stderr: 'kontor: a server already runs on this data folder\n', code: 1 };
          const out = bufferIo();
          const code = await runCommand(forwarded, out, {
            db: handle.db,
            clock,
            sealer,
            cwd,
            onKeyRevoked: () => authenticator.forget(),
            dataDir: config.dataDir,
            mailer,
            liveness: handle.liveness,
            invoicing: { ...invoicing, liveness: handle.liveness },
          });
          return { stdout: out.stdout, stderr: out.stderr, code };
        })
      : undefined;
  const worker = config.worker
    ? startWorker({
        db: handle.db,
        clock,
        webhooks: webhookDelivery({ db: handle.db, sealer }),
        mailer,
        services: { invoicing: { ...invoicing, liveness: handle.liveness }, portal: { sealer } },
        // Claims carry this process's token; jobs of a killed predecessor run at once.
        liveness: handle.liveness,
      })
    : undefined;

  const noCompanyYet = (await handle.db.selectFrom('companies').select('id').limit(1).execute()).length === 0;
  // The signals are heard before the first line is printed: whoever reads "listens on"
  // may stop the server at once. `on`, not `once`: Ctrl-C reaches a launcher's child twice
  // (from the terminal, and forwarded by bin/kontor.js); the second must not cut the stop short.
  let listening: Promise<string> = Promise.resolve('');
  let stopping = false;
  let metricsServer: Awaited<ReturnType<typeof serveMetrics>> | undefined;
  const { promise: stopped, resolve: exit } = Promise.withResolvers<number>();
  // A stop takes no new connections and finishes the requests in flight and the jobs that
  // run, then closes the database; bounded by KONTOR_STOP_TIMEOUT. Past it the open
  // connections are cut and the process ends with 1: an unfinished job is claimed again by
  // the next worker (its claim names a process that no longer lives), an unanswered client
  // repeats its request (Idempotency-Key).
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    const deadline = setTimeout(() => {
      io.err(`kontor: stopped after ${config.stopTimeoutSeconds} s with requests or jobs still running (KONTOR_STOP_TIMEOUT); they are cut off`);
      app?.server.closeAllConnections();
      process.exit(1);
    }, config.stopTimeoutSeconds * 1000);
    deadline.unref();
    await listening.catch(() => {});
    await metricsServer?.close();
    await app?.close();
    await worker?.stop();
    await invoicing.close();
    mailer.close();
    await new Promise<void>((done) => (control ? control.close(() => done()) : done()));
    await handle.close();
    clearTimeout(deadline);
    exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);

  if (app) {
    listening = app.listen({ port: config.port, host: config.host });
    let address: string;
    try {
      address = await listening;
    } catch (error) {
      await stop(); // a port in use, say: close what was opened, then say why
      throw error;
    }
    io.out(
      `Kontor listens on ${address} (the app at ${address}/app, API under /v1, docs at /docs) — ${handle.kind === 'pglite' ? `embedded database in ${config.dataDir}` : 'PostgreSQL server'}`,
    );
  } else {
    io.out('Kontor worker runs.');
  }
  if (metrics && config.metricsPort !== undefined) {
    metricsServer = await serveMetrics(metrics, config.metricsHost, config.metricsPort);
    io.out(`Metrics at ${metricsServer.address}/metrics`);
  }
  if (app && renderThreads === 0) {
    // Fonts and e-invoice schemas load once now, after the server answers, not on the first invoice.
    loadRenderers()
      .then((renderers) => renderers.warmUpRenderers())
      .catch((error: Error) => io.err(`kontor: the invoice renderers could not be prepared: ${error.message}`));
  }
  if (noCompanyYet) io.out(firstRunHint(config));
  return stopped;
}
