// Calendar dates as 'YYYY-MM-DD' strings; arithmetic in UTC so no time zone shifts a day.

export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}
