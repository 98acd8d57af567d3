import type { ModuleCommand } from './command-kit.ts';

export const DUNNING_COMMANDS: ModuleCommand[] = [];
