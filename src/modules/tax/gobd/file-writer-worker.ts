import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parentPort } from 'node:worker_threads';

// The GoBD export's document writer (gobd-sink.ts): writes each file it is sent, in order,
// synchronously, off the main thread — 200,000 small files are mostly system calls, which
// would otherwise hold up reading the database and writing the tables. Answers how many
// files it has written; the first failure ends it with the error.

type Message = { file: string; content: Uint8Array } | { end: true };

const made = new Set<string>();
let written = 0;
parentPort?.on('message', (message: Message) => {
  if ('end' in message) {
    parentPort?.postMessage({ written, ended: true });
    return;
  }
  try {
    const folder = path.dirname(message.file);
    if (!made.has(folder)) {
      mkdirSync(folder, { recursive: true });
      made.add(folder);
    }
    writeFileSync(message.file, message.content);
    written += 1;
    if (written % 32 === 0) parentPort?.postMessage({ written });
  } catch (error) {
    parentPort?.postMessage({ error: (error as NodeJS.ErrnoException).code ?? (error as Error).message });
    process.exit(1);
  }
});
