/**
 * Test-only pause points for crash tests: with `SKILLPORT_TEST_PAUSE_AT=<point>` in the server's environment
 * (`after-blob-N`, `before-commit`, `after-commit`), a publish that reaches that point prints `skillport: test pause at <point>`
 * on stderr and waits forever, so a test can SIGKILL the process exactly there. Without the variable this returns
 * undefined and the service never calls a hook: inert in normal runs.
 */
export function pauseHookFromEnv(env: NodeJS.ProcessEnv = process.env): ((point: string) => Promise<void>) | undefined {
  const wanted = env['SKILLPORT_TEST_PAUSE_AT'];
  if (wanted === undefined || wanted === '') return undefined;
  return async (point) => {
    if (point !== wanted) return;
    process.stderr.write(`skillport: test pause at ${point}\n`);
    await new Promise<never>(() => {});
  };
}
