import { spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { CLI, EXAMPLES, REPO, startHttp } from '@skillport/test-kit';

/**
 * A catalog to look at in tests and screenshots, served by the real `skillport serve` process: the bundled
 * examples, a folder of hostile skills written to attack the page, a secret skill only admins may see (policy),
 * and a registry with three versions of `pdf-tools` (one revoked with a reason, one signed with provenance and
 * approved). With `auth`, tokens for a reader and an admin.
 */
export { EXAMPLES, REPO };

export function runCli(args: string[], env: NodeJS.ProcessEnv = {}): { code: number; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [CLI, ...args], { env: { ...process.env, NO_COLOR: '1', ...env }, encoding: 'utf8' });
  return { code: result.status ?? 1, stdout: result.stdout, stderr: result.stderr };
}

function must(args: string[]): string {
  const result = runCli(args);
  if (result.code !== 0) throw new Error(`skillport ${args.join(' ')} failed:\n${result.stderr}`);
  return result.stdout.trim();
}

function write(base: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(base, path)), { recursive: true });
    writeFileSync(join(base, path), content);
  }
}

/** SKILL.md bodies that try every way we know to run script in the catalog's page. */
export const HOSTILE_BODY = `# Hostile skill

<script>window.__pwned = 'script tag'</script>
<img src=x onerror="window.__pwned='img onerror'">
<iframe src="javascript:window.__pwned='iframe'"></iframe>
<svg onload="window.__pwned='svg onload'"></svg>

[click me](javascript:window.__pwned='link')
[data link](data:text/html;base64,PHNjcmlwdD53aW5kb3cuX19wd25lZD0xPC9zY3JpcHQ+)
[vbscript](vbscript:msgbox)
[protocol relative](//evil.example/x)
![remote image](https://evil.example/track.png)
<a href="javascript:window.__pwned='raw a'">raw anchor</a>

\`\`\`html
<script>window.__pwned = 'code block'</script>
\`\`\`

| col <b>bold</b> | two |
|---|---:|
| <script>x</script> | [j](javascript:alert(1)) |

See [the page](evil.html) and [the picture](evil.svg).
`;

export interface Fixture {
  root: string;
  skillsDir: string;
  dataDir: string;
  policyFile: string;
  keyFile: string;
  adminToken: string;
  readerToken: string;
}

export function makeFixture(): Fixture {
  const root = mkdtempSync(join(tmpdir(), 'skillport-web-'));
  const skillsDir = join(root, 'skills');
  const skill = (name: string, description: string, body: string, extra = '') =>
    `---\nname: ${name}\ndescription: ${JSON.stringify(description)}\n${extra}---\n${body}`;
  write(skillsDir, {
    'lab/hostile-markdown/SKILL.md': skill(
      'hostile-markdown',
      'A skill whose SKILL.md tries to run script in the catalog page <script>window.__pwned="description"</script>',
      HOSTILE_BODY,
      'metadata:\n  tags: "security, test"\n',
    ),
    'lab/hostile-markdown/evil.html': `<!doctype html><script>window.__pwned = 'html file'</script><h1>evil</h1>`,
    'lab/hostile-markdown/evil.svg': `<svg xmlns="http://www.w3.org/2000/svg" onload="window.__pwned='svg file'"><script>window.__pwned='svg script'</script></svg>`,
    'lab/hostile-markdown/scripts/run.sh': '#!/bin/sh\necho "<script>alert(1)</script>"\n',
    'lab/secret-skill/SKILL.md': skill(
      'secret-skill',
      'Internal deployment runbook only admins may see',
      '# Secret\n\nOnly for admins.\n',
      'metadata:\n  tags: internal\n',
    ),
    'lab/<img src=x onerror=alert(1)>/SKILL.md': skill('name-attack', 'A folder name made of markup', '# Folder\n'),
  });
  const policyFile = join(root, 'policy.yaml');
  writeFileSync(policyFile, 'default: public\nrules:\n  - skills: [secret-skill]\n    allow: [user:admin]\n');
  const dataDir = join(root, 'data');
  const keyFile = join(root, 'ci.key');
  must(['keygen', '--output', keyFile]);
  const pdf = join(root, 'release');
  const release = (version: string, body: string, files: Record<string, string> = {}) => {
    write(pdf, {
      'pdf-tools/SKILL.md': skill(
        'pdf-tools',
        'Extract text and tables from PDF files, fill forms and merge documents',
        body,
        'metadata:\n  tags: "pdf, documents"\n',
      ),
      'pdf-tools/references/forms.md': `# Forms\n\nRelease ${version}.\n\nFill each field, then flatten.\n`,
      ...files,
    });
    return join(pdf, 'pdf-tools');
  };
  must(['publish', release('0.9.0', '# PDF tools\n\nEarly release.\n'), '--data', dataDir, '--version', '0.9.0', '-q']);
  must(['revoke', 'pdf-tools@0.9.0', '--data', dataDir, '--reason', 'leaked a credential in scripts/upload.sh']);
  must([
    'publish',
    release('1.0.0', '# PDF tools\n\nUse `pdftotext` to extract text.\n\n## Tables\n\nUse camelot for tables.\n'),
    '--data',
    dataDir,
    '--version',
    '1.0.0',
    '--source-repo',
    'https://git.example/acme/skills',
    '--source-commit',
    '1f2e3d4c5b6a79880716253443526170',
    '-q',
  ]);
  must([
    'publish',
    release(
      '1.1.0',
      '# PDF tools\n\nUse `pdftotext -layout` to extract text, keeping columns.\n\n## Tables\n\nUse camelot for tables; check each one.\n\n## Forms\n\nSee [forms](references/forms.md).\n',
      { 'pdf-tools/scripts/merge.py': 'import sys\nprint("merge", sys.argv[1:])\n' },
    ),
    '--data',
    dataDir,
    '--version',
    '1.1.0',
    '--sign',
    keyFile,
    '--source-repo',
    'https://git.example/acme/skills',
    '--source-commit',
    '9a8b7c6d5e4f30211203948576afbecd',
    '-q',
  ]);
  must(['review', 'pdf-tools@1.1.0', '--data', dataDir, '--status', 'approved']);
  const adminToken = must(['token', 'create', '--data', dataDir, '--user', 'admin', '--scope', 'admin', '--description', 'web tests']);
  const readerToken = must(['token', 'create', '--data', dataDir, '--user', 'reader', '--description', 'a reader']);
  return { root, skillsDir, dataDir, policyFile, keyFile, adminToken, readerToken };
}

export interface Served {
  /** http://127.0.0.1:PORT (no path). */
  base: string;
  proc: ChildProcess;
  stderr(): string;
  stop(): Promise<void>;
}

/** `skillport serve --http --port 0 --no-watch ...args` as a real process (the test kit's), addressed by its base URL. */
export async function serve(args: string[]): Promise<Served> {
  const server = await startHttp(['--no-watch', ...args]);
  return { base: server.url.replace(/\/mcp$/, ''), proc: server.proc, stderr: server.stderr, stop: server.stop };
}

/** The fixture served with sign-in, the policy and the trusted key. */
export function fixtureArgs(fixture: Fixture, auth = true): string[] {
  return [
    EXAMPLES,
    fixture.skillsDir,
    '--data',
    fixture.dataDir,
    '--trusted-keys',
    `${fixture.keyFile}.pub`,
    '--policy',
    fixture.policyFile,
    ...(auth ? ['--auth', 'tokens'] : []),
  ];
}
