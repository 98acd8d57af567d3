import type { ModuleCommand } from './command-kit.ts';

export const RECORD_COMMANDS: ModuleCommand[] = [];
