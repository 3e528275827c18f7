/** How run facts read in the table and panels. */

export function formatDuration(ms: number | null): string {
  if (ms === null) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

export function formatTime(iso: string | null): string {
  return iso ? new Date(iso).toLocaleTimeString() : '—';
}

export function formatValue(value: unknown): string {
  if (typeof value === 'number')
    return Number.isInteger(value) ? String(value) : value.toPrecision(4);
  return String(value);
}

/** The tail of a UUIDv7 is its random part: short and distinct enough for a table. */
export function shortId(id: string): string {
  return id.slice(-8);
}
