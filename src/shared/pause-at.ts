// A hook for crash tests: KONTOR_PAUSE_AT=<step> makes the process stop at that named
// step, say so on stderr and wait until it is killed, so a test can kill it at a known
// point (between the work and its commit, say) and check what survived.

/** Resolves at once unless KONTOR_PAUSE_AT names `step`; then never resolves (the process waits to be killed). */
export async function pauseAt(step: string): Promise<void> {
  if (process.env.KONTOR_PAUSE_AT !== step) return;
  process.stderr.write(`kontor: paused at ${step}\n`);
  // A pending promise alone does not keep Node running; the timer does.
  await new Promise<never>(() => setInterval(() => {}, 2 ** 30));
}
