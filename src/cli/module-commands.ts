import type { ModuleCommand } from './command-kit.ts';

// Commands that modules add to `kontor`. Each module keeps its handlers in a file of
// its own next to this one (e.g. bank-commands.ts) and lists them here.
export const MODULE_COMMANDS: ModuleCommand[] = [];
