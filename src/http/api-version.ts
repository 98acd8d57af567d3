import { AppError } from '../shared/errors.ts';

export const CURRENT_API_VERSION = '2026-11-01';
export const SUPPORTED_API_VERSIONS = [CURRENT_API_VERSION] as const;

/** The version a request asked for (the current one when it named none). */
export function resolveApiVersion(header: string | string[] | undefined): string {
  if (header === undefined) return CURRENT_API_VERSION;
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || !(SUPPORTED_API_VERSIONS as readonly string[]).includes(value.trim())) {
    throw new AppError('api_version_unknown', { supported: [...SUPPORTED_API_VERSIONS] });
  }
  return value.trim();
}
