import net from 'node:net';
import { runCli } from './cli/run-cli.ts';

watchLauncher();
process.exitCode = await runCli(process.argv.slice(2));

/**
 * When bin/kontor.js started this process as its child, fd 3 is a pipe from the launcher:
 * it closes when the launcher ends, however it ends (kill -9 included). Then this process
 * kills itself at once — no graceful shutdown, so nothing (an import's commit, say) is
 * done after the person who started it has gone. The watch keeps nothing running.
 */
function watchLauncher(): void {
  const fd = Number(process.env.KONTOR_LAUNCHER_FD);
  delete process.env.KONTOR_LAUNCHER_FD;
  if (!Number.isInteger(fd) || fd < 3) return;
  let pipe: net.Socket;
  try {
    pipe = new net.Socket({ fd, readable: true, writable: false });
  } catch {
    return; // not a pipe from the launcher: nothing to watch
  }
  const die = () => process.kill(process.pid, 'SIGKILL');
  pipe.on('end', die);
  pipe.on('close', die);
  pipe.on('error', die);
  pipe.resume();
  pipe.unref();
}
