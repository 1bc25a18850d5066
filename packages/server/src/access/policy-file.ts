import { readFileSync, renameSync, unwatchFile, watchFile, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { parsePolicy } from './policy.js';
import type { PolicyDocument } from './policy.js';
import type { PolicySource } from './policy-source.js';

/**
 * `--policy FILE`: read at start (a bad file stops the server), then watched. A change is parsed and swapped in
 * whole; a change that does not parse is reported and the policy in force stays (never a half-applied policy, never
 * an open one). The admin API writes through here: the text is checked first, then written atomically (temporary
 * file + rename), then applied at once without waiting for the watcher.
 */
export class PolicyFile implements PolicySource {
  /** The text of the policy in force. */
  #text: string;
  /** The text last read from the file (a broken one is reported once, not at every poll). */
  #seen: string;
  #policy: PolicyDocument;
  #listeners: Array<(policy: PolicyDocument) => void> = [];
  #watching = false;

  constructor(
    readonly path: string,
    readonly onError: (message: string) => void = () => {},
  ) {
    this.#text = readFileSync(path, 'utf8');
    this.#seen = this.#text;
    this.#policy = parsePolicy(this.#text, basename(path));
  }

  get policy(): PolicyDocument {
    return this.#policy;
  }

  get text(): string {
    return this.#text;
  }

  onChange(listener: (policy: PolicyDocument) => void): void {
    this.#listeners.push(listener);
  }

  watch(intervalMs = 250): void {
    if (this.#watching) return;
    this.#watching = true;
    // watchFile polls stat: it survives editors and tools that replace the file (rename) rather than write into it.
    // A write in place is seen half done (truncated, then filled): the file is read again only once it has stopped
    // changing, so a moment's empty or partial text is never taken for the policy.
    watchFile(this.path, { interval: intervalMs, persistent: false }, () => this.#settle(intervalMs));
  }

  #settleTimer: NodeJS.Timeout | undefined;

  #settle(delayMs: number): void {
    clearTimeout(this.#settleTimer);
    this.#settleTimer = setTimeout(
      () => {
        let first: string;
        try {
          first = readFileSync(this.path, 'utf8');
        } catch {
          return void this.reload(); // reported there
        }
        setTimeout(
          () => {
            let again: string | undefined;
            try {
              again = readFileSync(this.path, 'utf8');
            } catch {
              again = undefined;
            }
            if (again === first) this.reload();
            else this.#settle(delayMs);
          },
          Math.min(delayMs, 100),
        ).unref();
      },
      Math.min(delayMs, 100),
    );
    this.#settleTimer.unref();
  }

  /** Re-reads the file; returns whether the policy changed. */
  reload(): boolean {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (error) {
      this.onError(`policy ${this.path}: cannot read it (${(error as Error).message}); keeping the policy in force`);
      return false;
    }
    if (text === this.#seen) return false;
    this.#seen = text;
    if (text.trim() === '') {
      // Never "no rules" by accident (a file emptied mid-write, or by mistake): say default: none to deny everything.
      this.onError(`policy ${this.path}: the file is empty; keeping the policy in force (write "default: none" for a policy that shows nothing)`);
      return false;
    }
    if (text === this.#text) return false;
    try {
      this.#apply(text, parsePolicy(text, basename(this.path)));
      return true;
    } catch (error) {
      this.onError(`${(error as Error).message}; keeping the policy in force`);
      return false;
    }
  }

  /** Checks, writes and applies a new policy text (throws PolicyError when it does not parse; nothing changes then). */
  write(text: string): PolicyDocument {
    const policy = parsePolicy(text, basename(this.path));
    const temporary = join(dirname(this.path), `.${basename(this.path)}.${process.pid}.tmp`);
    writeFileSync(temporary, text);
    renameSync(temporary, this.path);
    this.#apply(text, policy);
    return policy;
  }

  #apply(text: string, policy: PolicyDocument): void {
    this.#text = text;
    this.#seen = text;
    this.#policy = policy;
    for (const listener of this.#listeners) listener(policy);
  }

  close(): void {
    clearTimeout(this.#settleTimer);
    if (this.#watching) unwatchFile(this.path);
    this.#watching = false;
  }
}
