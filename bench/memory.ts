// Peak memory of one phase of a bench process. The kernel keeps the process's peak resident
// size (VmHWM) since start; writing 5 to /proc/self/clear_refs resets it to the current size
// (Linux ≥ 4.0), so a phase's peak is measured without the set-up's. The set-up's own peak
// matters on PGlite: creating a new data folder (initdb in WebAssembly) peaks at ~1.1 GiB,
// once in a database's life, long before any month-end.
import { readFileSync, writeFileSync } from 'node:fs';

/** The process's peak resident size in MiB since start or the last resetPeakRss(). */
export function peakRssMiB(): number {
  try {
    const hwm = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (hwm) return Math.round(Number(hwm[1]) / 1024);
  } catch {}
  return Math.round(process.resourceUsage().maxRSS / 1024);
}

/** Starts a new peak from the current size; false where the kernel does not allow it (then the peak includes what came before). */
export function resetPeakRss(): boolean {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}
