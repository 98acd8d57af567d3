/** The list cut into consecutive parts of at most `size` items (bulk statements, IN lists). */
export function chunks<T>(list: readonly T[], size: number): T[][] {
  const parts: T[][] = [];
  for (let start = 0; start < list.length; start += size) parts.push(list.slice(start, start + size));
  return parts;
}
