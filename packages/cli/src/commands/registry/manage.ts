import type { Command } from 'commander';
import { escapeControls } from '@skillport/core';
import { plural } from '../../output.js';
import type { ExitCode } from '../../kit.js';
import { CommandError, parseRef, report, run, target, withLocal } from './common.js';
import type { TargetOptions } from './common.js';

interface ManageOptions extends TargetOptions {
  json?: boolean;
}

const targetOptions = (command: Command): Command =>
  command
    .option('--registry <url>', 'the registry server, e.g. http://127.0.0.1:3333; or SKILLPORT_REGISTRY')
    .option('--token <token>', 'write token; default: SKILLPORT_TOKEN, else the one skillport login stored')
    .option('--data <dir|url>', 'act on a store (a folder, or postgres://…) instead of a server')
    .option('--json', 'print the answer as JSON');

type VersionSummary = {
  version: string;
  packageDigest: string;
  publishedAt: string;
  yankedAt?: string;
  revoked?: { reason: string };
  signatures?: Array<{ keyId: string; trusted?: boolean }>;
  review?: string;
  gate?: { counts?: { low: number; medium: number; high: number } };
};

/** "1 high, 2 medium" from a version's scan counts ('' when clean or scanned before the gate existed). */
export /** The widest a table line is printed. */
const TABLE_WIDTH = 100;

/** An ISO time to the minute, in UTC as stored: `2026-12-01 11:00`. */
function minute(iso: string): string {
  return /^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(iso) ? iso.slice(0, 16).replace('T', ' ') : iso;
}

function scanCounts(counts: { low: number; medium: number; high: number } | undefined): string {
  if (counts === undefined) return '';
  const parts = (['high', 'medium', 'low'] as const).filter((s) => counts[s] > 0).map((s) => `${counts[s]} ${s}`);
  return parts.length > 0 ? parts.join(', ') : 'clean';
}

export function registerManage(program: Command, exit: ExitCode): void {
  targetOptions(program.command('versions').description('List the published versions and tags of a skill.').argument('<name>', 'the skill name')).action(
    async (name: string, options: ManageOptions) => {
      await run(exit, async () => {
        const where = await target(options);
        const answer =
          where.kind === 'http'
            ? ((await where.client.versions(name)) as { name: string; tags: Record<string, string>; versions: VersionSummary[] })
            : await withLocal(where.dir, async (registry) => {
                const found = await registry.service.versions(name);
                return {
                  name,
                  tags: found.tags,
                  versions: found.versions.map((v) => ({
                    version: v.version,
                    packageDigest: v.packageDigest,
                    publishedAt: v.publishedAt,
                    review: v.review,
                    ...(v.gate ? { gate: { counts: v.gate.counts } } : {}),
                    signatures: v.signatures.map((s) => ({ keyId: s.keyId, trusted: false })),
                    ...(v.yankedAt ? { yankedAt: v.yankedAt } : {}),
                    ...(v.revoked ? { revoked: v.revoked } : {}),
                  })),
                };
              });
        // By semver precedence (not publish order): a backported 1.2.5 sits below 2.0.0, as npm and cargo show it.
        // semver is loaded here: every other command (serve above all) starts without it.
        const { default: semver } = await import('semver');
        answer.versions = [...answer.versions].sort((a, b) => compareVersions(semver, a.version, b.version));
        const tagsOf = (version: string) =>
          Object.entries(answer.tags)
            .filter(([, v]) => v === version)
            .map(([t]) => t);
        const rows = answer.versions.map((v) => {
          const state = v.revoked ? `revoked: ${v.revoked.reason}` : v.yankedAt ? `yanked ${minute(v.yankedAt)}` : '';
          const signed = v.signatures?.length ? v.signatures.map((s) => s.keyId + (s.trusted ? ' (trusted)' : '')).join(', ') : 'unsigned';
          return [
            v.version,
            v.packageDigest.slice(0, 12) + '…',
            minute(v.publishedAt),
            signed,
            tagsOf(v.version).join(', '),
            v.review ?? '',
            scanCounts(v.gate?.counts),
            state,
          ];
        });
        const header = ['VERSION', 'DIGEST', 'PUBLISHED', 'SIGNATURE', 'TAGS', 'REVIEW', 'SCAN', 'STATE'];
        const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
        // Fits 100 columns: the last column (a revocation's reason) is cut to what is left (--json has it whole).
        const line = (cells: string[]) => {
          const head = cells
            .slice(0, -1)
            .map((cell, column) => cell.padEnd(widths[column]!))
            .join('  ');
          const last = cells.at(-1)!;
          const room = Math.max(20, TABLE_WIDTH - head.length - 2);
          return `${head}  ${last.length > room ? `${last.slice(0, room - 1)}…` : last}`.trimEnd();
        };
        report(options.json, answer, [`${answer.name}: ${plural(answer.versions.length, 'version')}`, line(header), ...rows.map(line)]);
      });
    },
  );

  targetOptions(
    program
      .command('tag')
      .description('Point a tag at a version (or remove a tag with --remove).')
      .argument('<ref>', 'NAME@VERSION (with --remove: NAME)')
      .argument('<tag>', 'the tag, e.g. beta or latest'),
  )
    .option('--remove', 'remove the tag instead')
    .action(async (ref: string, tag: string, options: ManageOptions & { remove?: boolean }) => {
      await run(exit, async () => {
        const where = await target(options);
        const { name, version } = options.remove ? { name: ref, version: '' } : parseRef(ref);
        let tags: Record<string, string>;
        if (where.kind === 'http') {
          tags = ((options.remove ? await where.client.untag(name, tag) : await where.client.tag(name, version, tag)) as { tags: Record<string, string> }).tags;
        } else {
          tags = await withLocal(where.dir, async (registry) =>
            Object.fromEntries(
              (options.remove ? await registry.service.untag(name, tag) : await registry.service.tag(name, version, tag)).map((t) => [t.tag, t.version]),
            ),
          );
        }
        report(options.json, { name, tags }, [
          options.remove ? `Removed tag ${tag} from ${name}` : `Tagged ${name}@${version} as ${tag}`,
          ...Object.entries(tags).map(([t, v]) => `  ${t} -> ${v}`),
        ]);
      });
    });

  targetOptions(
    program
      .command('yank')
      .description('Yank a version: it leaves catalogs and tags, but stays readable by exact version or digest for sessions pinned to it.')
      .argument('<ref>', 'NAME@VERSION'),
  )
    .option('--undo', 'list the version again (latest returns to it when it is the highest release); not for revoked versions')
    .action(async (ref: string, options: ManageOptions & { undo?: boolean }) => {
      await run(exit, async () => {
        const { name, version } = parseRef(ref);
        const where = await target(options);
        if (options.undo) {
          const record =
            where.kind === 'http' ? await where.client.unyank(name, version) : await withLocal(where.dir, (registry) => registry.service.unyank(name, version));
          report(options.json, record, [`Unyanked ${name}@${version}: listed again`]);
          return;
        }
        const record =
          where.kind === 'http' ? await where.client.yank(name, version) : await withLocal(where.dir, (registry) => registry.service.yank(name, version));
        report(options.json, record, [`Yanked ${name}@${version}`]);
      });
    });

  targetOptions(
    program
      .command('revoke')
      .description('Revoke a version: refused everywhere from now on, with the reason shown to callers and models.')
      .argument('<ref>', 'NAME@VERSION'),
  )
    .requiredOption('--reason <text>', 'why (shown to everyone who asks for the version)')
    .action(async (ref: string, options: ManageOptions & { reason: string }) => {
      await run(exit, async () => {
        const { name, version } = parseRef(ref);
        if (options.reason.trim() === '') throw new CommandError('--reason must not be empty', 2);
        const where = await target(options);
        const record =
          where.kind === 'http'
            ? await where.client.revoke(name, version, options.reason)
            : await withLocal(where.dir, (registry) => registry.service.revoke(name, version, options.reason));
        report(options.json, record, [`Revoked ${name}@${version}: ${options.reason}`]);
      });
    });

  targetOptions(
    program
      .command('review')
      .description('The review queue: list what waits (--pending), approve or reject a version, or set its review label.')
      .argument('[ref]', 'NAME@VERSION (not with --pending)'),
  )
    .option('--pending', 'list the versions waiting for review that you may review or published, with their findings')
    .option('--approve', 'approve NAME@VERSION: it is served, and the tags asked for at publish move to it')
    .option('--reject', 'reject NAME@VERSION (needs --reason): it is never served')
    .option('--reason <text>', 'why (shown to the publisher; required with --reject)')
    .option('--status <status>', 'set the review label: unreviewed, approved or rejected')
    .addHelpText(
      'after',
      `
A registry whose policy holds versions for review (gate: review, scripts: review) keeps a new version pending,
served to no one and listed only to its publisher and reviewers, until a reviewer approves it. Reviewers are
admin-scope tokens and the policy's revoke: subjects of the name (docs/security.md, "Review").`,
    )
    .action(
      async (
        ref: string | undefined,
        options: ManageOptions & { status?: string; pending?: boolean; approve?: boolean; reject?: boolean; reason?: string },
      ) => {
        await run(exit, async () => {
          const where = await target(options);
          const chosen = [options.pending, options.approve, options.reject, options.status !== undefined].filter(Boolean).length;
          if (chosen !== 1) throw new CommandError('give one of --pending, --approve, --reject or --status', 2);
          if (options.pending) {
            if (ref !== undefined) throw new CommandError('--pending lists every waiting version: give no NAME@VERSION', 2);
            const pending = (
              where.kind === 'http'
                ? (((await where.client.pending()) as { pending: PendingVersion[] }).pending ?? [])
                : await withLocal(where.dir, async (registry) =>
                    (await registry.service.pending()).map((v) => ({ ...v, gate: v.gate, findings: v.gate?.findings ?? [] }) as PendingVersion),
                  )
            ) as PendingVersion[];
            const lines = pending.length === 0 ? ['nothing is waiting for review'] : pending.flatMap(pendingLines);
            report(options.json, { pending }, lines);
            return;
          }
          if (ref === undefined) throw new CommandError('give NAME@VERSION', 2);
          const { name, version } = parseRef(ref);
          if (options.status !== undefined) {
            const record =
              where.kind === 'http'
                ? await where.client.review(name, version, options.status)
                : await withLocal(where.dir, (registry) => registry.service.review(name, version, options.status!));
            report(options.json, record, [`${name}@${version}: review ${options.status}`]);
            return;
          }
          const decision = options.approve ? 'approve' : 'reject';
          if (decision === 'reject' && !options.reason?.trim()) throw new CommandError('--reject needs --reason: the publisher reads it', 2);
          const record = (
            where.kind === 'http'
              ? await where.client.decide(name, version, decision, options.reason ?? '')
              : await withLocal(where.dir, (registry) =>
                  registry.service.decide(name, version, decision === 'approve' ? 'approved' : 'rejected', options.reason ?? ''),
                )
          ) as { review?: string };
          report(options.json, record, [
            decision === 'approve' ? `Approved ${name}@${version}: it is served now` : `Rejected ${name}@${version}: it will never be served`,
          ]);
        });
      },
    );
}

interface PendingVersion {
  name: string;
  version: string;
  publisher: string;
  publishedAt: string;
  gate?: { reasons?: string[]; counts?: { low: number; medium: number; high: number }; requestedTags?: string[] };
  findings?: Array<{ severity: string; rule: string; file: string; line: number; title: string; excerpt: string }>;
}

/** A waiting version: who and when, why it waits, and its findings (highest first, at most 10). */
function pendingLines(v: PendingVersion): string[] {
  const lines = [
    `${escapeControls(v.name)}@${escapeControls(v.version)}  published ${v.publishedAt} by ${escapeControls(v.publisher)}${v.gate?.counts ? `  scan: ${scanCounts(v.gate.counts)}` : ''}`,
  ];
  for (const reason of v.gate?.reasons ?? []) lines.push(`  held: ${escapeControls(reason)}`);
  for (const finding of (v.findings ?? []).slice(0, 10))
    lines.push(
      `  ${finding.severity.padEnd(6)} ${finding.rule}  ${escapeControls(finding.file)}${finding.line > 0 ? `:${finding.line}` : ''}  ${escapeControls(finding.excerpt)}`,
    );
  if ((v.findings ?? []).length > 10) lines.push(`  … ${(v.findings ?? []).length - 10} more (skillport scan shows them all)`);
  return lines;
}

/** Semver precedence; a version that is not semver (none are published, but a store may be old) sorts first. */
function compareVersions(semver: typeof import('semver'), a: string, b: string): number {
  const left = semver.valid(a);
  const right = semver.valid(b);
  if (left && right) return semver.compare(left, right);
  return left ? 1 : right ? -1 : a < b ? -1 : a > b ? 1 : 0;
}
