/**
 * Times given on a command line or in a query: an ISO 8601 time (`2026-07-01`, `2026-07-01T12:00:00Z`) or a span
 * (`45s`, `30m`, `2h`, `7d`, `1w`). One parser, so `audit --since`, `?since=` and `token create --expires` agree.
 */
const UNITS = { s: 1e3, m: 60e3, h: 3600e3, d: 86400e3, w: 7 * 86400e3 } as const;

/** A span (`30m`) in milliseconds, or undefined when the text is not one. */
export function parseSpan(text: string): number | undefined {
  const span = /^(\d{1,6})([smhdw])$/.exec(text.trim());
  return span ? Number(span[1]) * UNITS[span[2] as keyof typeof UNITS] : undefined;
}

/** An ISO 8601 time (date first), or undefined. */
export function parseIsoTime(text: string): Date | undefined {
  if (!/^\d{4}-\d{2}-\d{2}/.test(text.trim())) return undefined;
  const time = Date.parse(text);
  return Number.isNaN(time) ? undefined : new Date(time);
}

/** `--since`: an ISO 8601 time, or a span back from now; as an ISO string, or undefined when it is neither. */
export function parseSince(text: string, now = Date.now()): string | undefined {
  const span = parseSpan(text);
  if (span !== undefined) return new Date(now - span).toISOString();
  return parseIsoTime(text)?.toISOString();
}

/** `--expires`: an ISO 8601 time, or a span forward from now; undefined when it is neither. */
export function parseExpiry(text: string, now = Date.now()): Date | undefined {
  const span = parseSpan(text);
  if (span !== undefined) return new Date(now + span);
  return parseIsoTime(text);
}
