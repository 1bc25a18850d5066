/**
 * `--data` names either a folder (the embedded store) or a PostgreSQL URL: how to tell, and how to show a URL
 * without its password. Apart from store-open.ts so the PostgreSQL store can use it without an import cycle.
 */
export function isPostgresUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

/** The URL without its password, for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'postgres://(unparsable URL)';
  }
}
