import { existsSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { escapeControls } from '@skillport/core';
import type { Command } from 'commander';
import type { ExitCode } from '../../kit.js';
import { repeatable } from '../../kit.js';
import { displayPath, paint, plural } from '../../output.js';
import { userSettings } from '../../user-config.js';
import { CommandError, describeError, displayStore, loadPackage, provenanceFrom, report, run, sign, target, withLocal } from './common.js';
import type { Target } from './common.js';

interface PackOptions {
  output?: string;
  version?: string;
  sign?: string;
  sourceRepo?: string;
  sourceCommit?: string;
  force?: boolean;
  json?: boolean;
}

interface PublishOptions extends Omit<PackOptions, 'output' | 'force'> {
  registry?: string;
  token?: string;
  data?: string;
  tag?: string[];
  strict?: boolean;
  allowField: string[];
  quiet?: boolean;
  fromGit?: string;
  tags?: string;
}

export function registerPack(program: Command, exit: ExitCode): void {
  program
    .command('pack')
    .description('Make a .skill archive (tar.gz with a manifest of digests) from a skill folder.')
    .argument('<dir>', 'the skill folder (validated as publish does: errors refuse it, warnings are printed)')
    .option('-o, --output <file>', 'where to write it (default: <name>-<version>.skill, or <name>.skill)')
    .option('--version <version>', 'record this version in the manifest (semver)')
    .option('--sign <keyfile>', 'sign the package digest with this Ed25519 private key (skillport keygen)')
    .option('--source-repo <url>', 'source repository to record as provenance (default: from CI variables)')
    .option('--source-commit <sha>', 'source commit to record as provenance (default: from CI variables)')
    .option('-f, --force', 'overwrite the output file')
    .option('--json', 'print the manifest as JSON')
    .addHelpText(
      'after',
      '\nThe archive holds skillport.json (name, version, package digest, files, provenance, signatures) and\n<name>/<files>; the same folder always packs to the same bytes. See docs/api.md.',
    )
    .action(async (dir: string, options: PackOptions) => {
      await run(exit, async () => {
        const warnings = paint(process.stderr);
        const pkg = await loadPackage(dir, {
          ...(options.version ? { version: options.version } : {}),
          provenance: provenanceFrom(options),
          allowFields: userSettings().allowFields,
          onWarning: (line) => process.stderr.write(`${warnings.yellow('warning')}: ${escapeControls(line)}\n`),
        });
        if (options.sign) await sign(pkg, options.sign);
        const { packSkillArchive } = await import('@skillport/registry/client');
        const archive = packSkillArchive(pkg.manifest, pkg.files);
        const output = resolve(options.output ?? `${pkg.name}${pkg.manifest.version ? `-${pkg.manifest.version}` : ''}.skill`);
        if (existsSync(output) && !options.force) throw new CommandError(`${displayPath(output)} exists; use --force to overwrite it`);
        writeFileSync(output, archive);
        report(options.json, { file: output, bytes: archive.byteLength, manifest: pkg.manifest }, [
          `Packed ${pkg.name}${pkg.manifest.version ? `@${pkg.manifest.version}` : ''}: ${plural(pkg.files.length, 'file')}, ${plural(archive.byteLength, 'byte')} -> ${displayPath(output)}`,
          `package digest ${pkg.manifest.packageDigest}${pkg.manifest.signatures?.length ? `, signed by ${pkg.manifest.signatures.map((s) => s.keyId).join(', ')}` : ''}`,
        ]);
      });
    });
}

export function registerPublish(program: Command, exit: ExitCode): void {
  program
    .command('publish')
    .description('Publish skill folders or .skill archives to a registry, each as an immutable version.')
    .argument('[paths...]', 'skill folders, or .skill / tar.gz archives')
    .option('--from-git <repo>', "publish the skills of a repository's tags (a path such as the CI's checkout, a URL, or a git source); see --tags")
    .option('--tags <pattern>', "with --from-git: the tags to publish, * and ? as wildcards (v*: v1.0.0, v1.1.0…; pdf@*: one skill's)", 'v*')
    .option('--registry <url>', 'the registry server (skillport serve --data DIR --http), its base URL or /mcp; or SKILLPORT_REGISTRY')
    .option('--token <token>', 'publish token; default: SKILLPORT_TOKEN, else the one `skillport login` stored')
    .option('--data <dir|url>', 'publish straight into a store (a folder, or postgres://…) instead of a server')
    .option('--version <version>', "the version (semver); default: the archive's, else metadata.version (or a top-level version) in SKILL.md")
    .option('--tag <tag>', 'a tag to point at it (default: latest; prereleases move latest only when asked); repeatable', repeatable())
    .option('--strict', 'refuse a skill with warnings too (a registry with strict: true does so anyway)')
    .option('--allow-field <name>', 'accept this frontmatter field without a warning; repeatable', repeatable(), [])
    .option('--sign <keyfile>', 'sign the package digest with this Ed25519 private key')
    .option('--source-repo <url>', 'source repository to record as provenance (default: from CI variables)')
    .option('--source-commit <sha>', 'source commit to record as provenance (default: from CI variables)')
    .option('--json', 'print the published version as JSON (a list with several paths)')
    .option('-q, --quiet', 'no progress on stderr')
    .addHelpText(
      'after',
      `
A skill is published as \`skillport validate\` passes it: errors refuse it, warnings are printed and do not.
Exit codes: 0 published (or the same bytes were already there), 1 refused (invalid skill, version taken by
other bytes, bad signature, not authorised; with several paths: any of them), 2 usage error.

Examples:
  skillport publish ./skills/pdf-tools --registry http://127.0.0.1:3333 --version 1.2.0
  skillport publish pdf-tools-1.2.0.skill --registry "$REGISTRY" --sign ci.key --tag beta
  skillport publish --from-git . --tags 'v*' --registry "$REGISTRY"   every skill of every v* tag, once each`,
    )
    .action(async (paths: string[], options: PublishOptions) => {
      await run(exit, async () => {
        if (options.fromGit !== undefined) {
          if (paths.length > 0) throw new CommandError('give skill paths or --from-git, not both', 2);
          if (options.version !== undefined) throw new CommandError('--from-git takes each version from its tag (or the skill); drop --version', 2);
          return publishFromGit(options.fromGit, await target(options), options);
        }
        if (paths.length === 0) throw new CommandError('give the skill folders or archives to publish (or --from-git REPO)', 2);
        const where = await target(options);
        const progress = (line: string) => (options.quiet || options.json ? undefined : process.stderr.write(`skillport: ${line}\n`));
        const warnings = paint(process.stderr);
        const allowFields = [...options.allowField, ...userSettings().allowFields];
        const results: Array<Record<string, unknown>> = [];
        let failed = 0;
        for (const path of paths) {
          try {
            results.push(
              await publishOne(path, where, options, allowFields, progress, (line) =>
                process.stderr.write(`${warnings.yellow('warning')}: ${escapeControls(line)}\n`),
              ),
            );
          } catch (error) {
            // One refused skill does not stop the others; the last one's failure is the command's when alone.
            if (paths.length === 1) throw error;
            failed++;
            const line = error instanceof CommandError ? error.message : await describeError(error);
            if (line === undefined) throw error;
            process.stderr.write(`${warnings.red('error')}: ${escapeControls(path)}: ${escapeControls(line, { keepNewlines: true })}\n`);
            results.push({ path, status: 'refused', error: line });
          }
        }
        if (options.json) report(true, paths.length === 1 ? results[0] : results, []);
        if (paths.length > 1) {
          const published = results.filter((result) => result['status'] === 'created').length;
          const same = results.filter((result) => result['status'] === 'exists').length;
          process.stderr.write(`${plural(paths.length, 'skill')}: ${published} published, ${same} already there, ${failed} refused\n`);
        }
        if (failed > 0) throw new CommandError(`${plural(failed, 'skill was', 'skills were')} not published`);
      });
    });
}

async function publishOne(
  path: string,
  where: Target,
  options: PublishOptions,
  allowFields: string[],
  progress: (line: string) => void,
  onWarning: (line: string) => void,
): Promise<Record<string, unknown>> {
  progress(`packing ${displayPath(resolve(path))}…`);
  const pkg = await loadPackage(path, {
    ...(options.version ? { version: options.version } : {}),
    provenance: provenanceFrom(options),
    strict: options.strict === true,
    allowFields,
    onWarning,
  });
  if (options.sign) await sign(pkg, options.sign);
  const { packSkillArchive } = await import('@skillport/registry/client');
  const archive = packSkillArchive(pkg.manifest, pkg.files);
  const tags = options.tag ?? [];
  let result: Record<string, unknown>;
  if (where.kind === 'http') {
    progress(`uploading ${pkg.name} (${plural(archive.byteLength, 'byte')}) to ${where.client.base}…`);
    result = await where.client.publish(archive, { ...(options.version ? { version: options.version } : {}), tags });
  } else {
    progress(`writing ${pkg.name} into ${displayStore(where.dir)}…`);
    result = await withLocal(
      where.dir,
      async (registry) => {
        const published = await registry.service.publish({
          archive,
          ...(options.version ? { version: options.version } : {}),
          ...(tags.length ? { tags } : {}),
          publisher: 'local',
        });
        return {
          status: published.status,
          name: published.version.name,
          version: published.version.version,
          packageDigest: published.version.packageDigest,
          tags: Object.fromEntries(published.tags.map((t) => [t.tag, t.version])),
          files: published.version.manifest.files,
          signatures: published.version.signatures.map((s) => ({ keyId: s.keyId })),
          review: published.version.review,
          warnings: published.warnings,
        };
      },
      { create: true },
    );
  }
  const pointing = Object.entries((result['tags'] ?? {}) as Record<string, string>)
    .filter(([, v]) => v === result['version'])
    .map(([t]) => t);
  // The gate's words (held for review, findings, near-duplicates) are warnings, like validation's.
  for (const line of (result['warnings'] as string[] | undefined) ?? []) onWarning(line);
  if (options.json) return result;
  report(false, result, [
    `${result['status'] === 'exists' ? 'Already published' : result['review'] === 'pending' ? 'Published, waiting for review:' : 'Published'} ${String(result['name'])}@${String(result['version'])} ${String(result['packageDigest'])}${pointing.length ? ` (tags: ${pointing.join(', ')})` : ''}`,
    ...((result['files'] as Array<{ path: string; digest: string; size: number }> | undefined) ?? []).map(
      (file) => `  ${file.digest} ${String(file.size).padStart(8)} ${file.path}`,
    ),
  ]);
  return result;
}

/** Every skill of every matching tag, each as the tag's version with its commit as provenance (from-git.ts). */
async function publishFromGit(repo: string, where: Target, options: PublishOptions): Promise<void> {
  const { gitSourceOf, listReleases, releaseSkills } = await import('./from-git.js');
  const source = gitSourceOf(repo);
  const progress = (line: string) => (options.quiet || options.json ? undefined : process.stderr.write(`skillport: ${line}\n`));
  const warnings = paint(process.stderr);
  const allowFields = [...options.allowField, ...userSettings().allowFields];
  const releases = await listReleases(source, options.tags ?? 'v*');
  if (releases.length === 0) throw new CommandError(`no tag of ${repo} matches ${options.tags ?? 'v*'}`);
  progress(`${plural(releases.length, 'tag')} match ${options.tags ?? 'v*'}: ${releases.map((release) => release.tag).join(', ')}`);
  const results: Array<Record<string, unknown>> = [];
  for (const release of releases) {
    const { repository, skills, done } = await releaseSkills(source, release);
    try {
      if (skills.length === 0) progress(`${release.tag}: no skills at ${release.commit.slice(0, 12)}`);
      for (const skill of skills) {
        const skillOptions: PublishOptions = {
          ...options,
          ...(release.version !== undefined ? { version: release.version } : {}),
          sourceRepo: repository,
          sourceCommit: release.commit,
          json: true,
        };
        try {
          const result = await publishOne(skill.dir, where, skillOptions, allowFields, progress, (line) =>
            process.stderr.write(`${warnings.yellow('warning')}: ${release.tag}: ${escapeControls(line)}\n`),
          );
          results.push({ tag: release.tag, commit: release.commit, ...result });
          progress(
            `${release.tag}: ${result['status'] === 'exists' ? 'already published' : 'published'} ${String(result['name'])}@${String(result['version'])}`,
          );
        } catch (error) {
          const line = error instanceof CommandError ? error.message : await describeError(error);
          if (line === undefined) throw error;
          process.stderr.write(`${warnings.red('error')}: ${release.tag}: ${skill.name}: ${escapeControls(line, { keepNewlines: true })}\n`);
          results.push({ tag: release.tag, commit: release.commit, name: skill.name, status: 'refused', error: line });
        }
      }
    } finally {
      done();
    }
  }
  if (options.json) report(true, results, []);
  const count = (status: string) => results.filter((result) => result['status'] === status).length;
  const refused = count('refused');
  if (!options.quiet)
    process.stderr.write(`${plural(results.length, 'version')}: ${count('created')} published, ${count('exists')} already there, ${refused} refused\n`);
  if (refused > 0) throw new CommandError(`${plural(refused, 'version was', 'versions were')} not published`);
}
