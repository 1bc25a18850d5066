import { existsSync, writeFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import type { Command } from 'commander';
import type { ExitCode } from '../../kit.js';
import { repeatable } from '../../kit.js';
import { displayPath, plural } from '../../output.js';
import { CommandError, displayStore, loadPackage, provenanceFrom, report, run, sign, target, withLocal } from './common.js';

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
  tag: string[];
  quiet?: boolean;
}

export function registerPack(program: Command, exit: ExitCode): void {
  program
    .command('pack')
    .description('Make a .skill archive (tar.gz with a manifest of digests) from a skill folder.')
    .argument('<dir>', 'the skill folder (validated strictly: any problem refuses it)')
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
        const pkg = await loadPackage(dir, { ...(options.version ? { version: options.version } : {}), provenance: provenanceFrom(options) });
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
    .description('Publish a skill folder or .skill archive to a registry as an immutable version.')
    .argument('<path>', 'a skill folder, or a .skill / tar.gz archive')
    .option('--registry <url>', 'the registry server (skillport serve --data DIR --http), e.g. http://127.0.0.1:3333; or SKILLPORT_REGISTRY')
    .option('--token <token>', "publish token (the server's SKILLPORT_PUBLISH_TOKEN); or SKILLPORT_TOKEN")
    .option('--data <dir|url>', 'publish straight into a store (a folder, or postgres://…) instead of a server')
    .option('--version <version>', "the version (semver); default: the archive's, else metadata.version in SKILL.md")
    .option('--tag <tag>', 'a tag to point at it (default: latest; prereleases move latest only when asked); repeatable', repeatable(), [] as string[])
    .option('--sign <keyfile>', 'sign the package digest with this Ed25519 private key')
    .option('--source-repo <url>', 'source repository to record as provenance (default: from CI variables)')
    .option('--source-commit <sha>', 'source commit to record as provenance (default: from CI variables)')
    .option('--json', 'print the published version as JSON')
    .option('-q, --quiet', 'no progress on stderr')
    .addHelpText(
      'after',
      `
Exit codes: 0 published (or the same bytes were already there), 1 refused (invalid skill, version taken by
other bytes, bad signature, not authorised), 2 usage error.

Examples:
  skillport publish ./skills/pdf-tools --registry http://127.0.0.1:3333 --token "$TOKEN" --version 1.2.0
  skillport publish pdf-tools-1.2.0.skill --registry "$REGISTRY" --sign ci.key --tag beta`,
    )
    .action(async (path: string, options: PublishOptions) => {
      await run(exit, async () => {
        const where = await target(options);
        const progress = (line: string) => (options.quiet || options.json ? undefined : process.stderr.write(`skillport: ${line}\n`));
        progress(`packing ${displayPath(resolve(path))}…`);
        const pkg = await loadPackage(path, { ...(options.version ? { version: options.version } : {}), provenance: provenanceFrom(options) });
        if (options.sign) await sign(pkg, options.sign);
        const { packSkillArchive } = await import('@skillport/registry/client');
        const archive = packSkillArchive(pkg.manifest, pkg.files);
        let result: Record<string, unknown>;
        if (where.kind === 'http') {
          progress(`uploading ${pkg.name} (${plural(archive.byteLength, 'byte')}) to ${where.client.base}…`);
          result = await where.client.publish(archive, {
            ...(options.version ? { version: options.version } : {}),
            tags: options.tag,
          });
        } else {
          progress(`writing ${pkg.name} into ${displayStore(where.dir)}…`);
          result = await withLocal(
            where.dir,
            async (registry) => {
              const published = await registry.service.publish({
                archive,
                ...(options.version ? { version: options.version } : {}),
                ...(options.tag.length ? { tags: options.tag } : {}),
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
              };
            },
            { create: true },
          );
        }
        const tags = Object.entries((result['tags'] ?? {}) as Record<string, string>)
          .filter(([, v]) => v === result['version'])
          .map(([t]) => t);
        report(options.json, result, [
          `${result['status'] === 'exists' ? 'Already published' : 'Published'} ${String(result['name'])}@${String(result['version'])} ${String(result['packageDigest'])}${tags.length ? ` (tags: ${tags.join(', ')})` : ''}`,
          ...((result['files'] as Array<{ path: string; digest: string; size: number }> | undefined) ?? []).map(
            (file) => `  ${file.digest} ${String(file.size).padStart(8)} ${file.path}`,
          ),
        ]);
        void basename;
      });
    });
}
