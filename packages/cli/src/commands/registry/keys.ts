import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { ExitCode } from '../../kit.js';
import { displayPath } from '../../output.js';
import { CommandError, report, run } from './common.js';

export function registerKeys(program: Command, exit: ExitCode): void {
  program
    .command('keygen')
    .description('Make an Ed25519 key pair for signing skills: KEYFILE (private, mode 600) and KEYFILE.pub.')
    .requiredOption('-o, --output <keyfile>', 'where to write the private key (the public key goes to KEYFILE.pub)')
    .option('-f, --force', 'overwrite existing files')
    .option('--json', 'print the key id and paths as JSON')
    .action(async (options: { output: string; force?: boolean; json?: boolean }) => {
      await run(exit, async () => {
        const { generateKeyPair } = await import('@skillport/registry/client');
        const pub = `${options.output}.pub`;
        for (const file of [options.output, pub])
          if (existsSync(file) && !options.force) throw new CommandError(`${displayPath(file)} exists; use --force to overwrite it`);
        const pair = generateKeyPair();
        writeFileSync(options.output, pair.privateKey, { mode: 0o600 });
        writeFileSync(pub, pair.publicKey, { mode: 0o644 });
        report(options.json, { keyId: pair.keyId, privateKey: options.output, publicKey: pub }, [
          `Key ${pair.keyId}`,
          `  private: ${displayPath(options.output)} (keep it secret: publish --sign ${displayPath(options.output)})`,
          `  public:  ${displayPath(pub)} (give it to the registry: serve --trusted-keys FILE)`,
        ]);
      });
    });

  program
    .command('verify')
    .description('Check a .skill archive: its files against its manifest, and its signature by a public key.')
    .argument('<file>', 'the .skill archive')
    .requiredOption('--key <pubfile>', 'the public key (KEYFILE.pub) that must have signed it')
    .option('--json', 'print the verdict as JSON')
    .addHelpText('after', '\nExit 0 when the files match the manifest and the key signed the package digest; 1 otherwise.')
    .action(async (file: string, options: { key: string; json?: boolean }) => {
      await run(exit, async () => {
        const registry = await import('@skillport/registry/client');
        let keyId: string;
        try {
          keyId = registry.keyIdOf(registry.loadPublicKey(readFileSync(options.key, 'utf8')));
        } catch (error) {
          throw new CommandError(`${options.key}: ${missing(error) ?? (error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
        }
        let read;
        try {
          read = await registry.readSkillPackage(readFileSync(file));
        } catch (error) {
          if (error instanceof registry.ArchiveError) throw new CommandError(`${file}: ${error.message}`);
          throw new CommandError(`${file}: ${missing(error) ?? (error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
        }
        if (read.manifest === undefined)
          throw new CommandError(`${file} has no skillport.json manifest: it is not a .skill archive, so it carries no signature`);
        const manifest = read.manifest;
        const signature = manifest.signatures?.find((candidate) => candidate.keyId === keyId);
        const verdict =
          signature === undefined
            ? {
                valid: false as const,
                reason: `not signed by ${keyId}${manifest.signatures?.length ? ` (signed by ${manifest.signatures.map((s) => s.keyId).join(', ')})` : ' (no signature)'}`,
              }
            : registry.checkSignature(manifest.packageDigest, signature);
        const result = {
          file,
          name: manifest.name,
          version: manifest.version,
          packageDigest: manifest.packageDigest,
          keyId,
          verified: verdict.valid,
          ...(verdict.valid ? {} : { reason: verdict.reason }),
        };
        if (!verdict.valid) {
          if (options.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
          throw new CommandError(`${file}: ${verdict.reason}`);
        }
        report(options.json, result, [
          `Verified ${manifest.name}${manifest.version ? `@${manifest.version}` : ''} ${manifest.packageDigest}: files match the manifest, signed by ${keyId}`,
        ]);
      });
    });
}

/** A missing or unreadable file said in words, not as an errno code. */
function missing(error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EISDIR') return 'is a folder, not a file';
  if (code === 'EACCES') return 'permission denied';
  return undefined;
}
