import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';

/**
 * Chromium for the browser tests: Debian's `chromium` (installed by .ci/run with apt-get when missing), or the
 * binary named by SKILLPORT_CHROMIUM. Undefined when there is none: the tests then say so and skip.
 */
export function chromiumPath(): string | undefined {
  const given = process.env['SKILLPORT_CHROMIUM'];
  if (given) return existsSync(given) ? given : undefined;
  for (const name of ['chromium', 'chromium-browser']) {
    try {
      const found = execFileSync('which', [name], { encoding: 'utf8' }).trim();
      if (found) return found;
    } catch {
      // not on PATH
    }
  }
  return undefined;
}

export const NO_CHROMIUM = 'no chromium on this machine (apt-get install chromium, or set SKILLPORT_CHROMIUM)';

export async function launch(path: string): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: path, headless: true, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
}
