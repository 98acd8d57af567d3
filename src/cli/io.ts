/** Where a command writes: the terminal, or a buffer sent back over the control socket. */
export type CommandIo = { out(text: string): void; err(text: string): void };

export const processIo: CommandIo = {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
};

export function bufferIo(): CommandIo & { stdout: string; stderr: string } {
  const io = {
    stdout: '',
    stderr: '',
    out(text: string) {
      io.stdout += `${text}\n`;
    },
    err(text: string) {
      io.stderr += `${text}\n`;
    },
  };
  return io;
}

export class UsageError extends Error {}
