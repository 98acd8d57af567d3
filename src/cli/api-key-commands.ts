import type { ModuleCommand } from './command-kit.ts';

export const API_KEY_COMMANDS: ModuleCommand[] = [];
