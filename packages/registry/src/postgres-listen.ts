import pg from 'pg';

/**
 * The replicas' wake-up (ADR 0024): every write transaction appends to the `changes` table and NOTIFYs
 * `skillport_changes`, delivered at commit. `listenForChanges` calls `onChange` whenever one arrives, and once after
 * every (re)connection (notifications sent while disconnected are lost; the caller catches up from the changes it
 * last applied). The listening connection is its own, outside any pool; it reconnects with backoff (250 ms
 * doubling to 5 s). Used by the registry store and the access store alike.
 */
export const CHANGES_CHANNEL = 'skillport_changes';

export function listenForChanges(
  url: string,
  onChange: () => void,
  onState: ((connected: boolean) => void) | undefined,
  onProblem: (message: string) => void,
  what: string,
): () => void {
  let stopped = false;
  let client: pg.Client | undefined;
  let delay = 250;
  let timer: NodeJS.Timeout | undefined;
  let wasDown = false;
  const connect = async () => {
    if (stopped) return;
    const next = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000, application_name: 'skillport-listen' });
    let lost = false;
    const onLost = (error?: Error) => {
      if (lost) return;
      lost = true;
      next.removeAllListeners('notification');
      void next.end().catch(() => undefined);
      if (client === next) client = undefined;
      if (stopped) return;
      if (!wasDown) onProblem(`${what}: change listener disconnected (${error?.message ?? 'connection ended'}); serving from memory, reconnecting`);
      wasDown = true;
      onState?.(false);
      timer = setTimeout(() => void connect(), delay);
      timer.unref();
      delay = Math.min(delay * 2, 5000);
    };
    next.on('error', onLost);
    next.on('end', () => onLost());
    try {
      await next.connect();
      next.on('notification', () => onChange());
      await next.query(`LISTEN ${CHANGES_CHANNEL}`);
    } catch (error) {
      onLost(error as Error);
      return;
    }
    if (stopped) {
      void next.end().catch(() => undefined);
      return;
    }
    client = next;
    delay = 250;
    if (wasDown) onProblem(`${what}: change listener reconnected; catching up`);
    wasDown = false;
    onState?.(true);
    onChange();
  };
  void connect();
  return () => {
    stopped = true;
    if (timer !== undefined) clearTimeout(timer);
    void client?.end().catch(() => undefined);
  };
}
