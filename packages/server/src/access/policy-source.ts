import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { OPEN_POLICY, parsePolicy } from './policy.js';
import type { PolicyDocument } from './policy.js';
import type { AccessStore } from './store.js';

/**
 * Where the policy in force comes from and where the admin API writes it: a file (`PolicyFile`, `--policy FILE`
 * with a folder or no --data), or the shared database (`StoredPolicy`, `--data postgres://…`), where every replica
 * reads it and a change made through one is applied by all through the store's change feed.
 */
export interface PolicySource {
  /** The text in force; undefined when there is none (every skill public). */
  readonly text: string | undefined;
  readonly policy: PolicyDocument;
  /** Checks, stores and applies a new text (PolicyError when it does not parse; nothing changes then). */
  write(text: string): PolicyDocument | Promise<PolicyDocument>;
  onChange(listener: (policy: PolicyDocument) => void): void;
  watch(): void;
  close(): void;
}

/**
 * The policy kept in the access store. With `--policy FILE` the file is imported at start when its text differs
 * from the text last imported from a file (by digest), so a restart with the same file keeps edits made through
 * the admin API, and a new file (a deploy) replaces them. Without a file, the stored policy (if any) is in force.
 */
export class StoredPolicy implements PolicySource {
  #text: string | undefined;
  #policy: PolicyDocument = OPEN_POLICY;
  #listeners: Array<(policy: PolicyDocument) => void> = [];

  private constructor(readonly store: AccessStore, readonly onError: (message: string) => void) {}

  static async open(store: AccessStore, file: string | undefined, onError: (message: string) => void = () => {}): Promise<StoredPolicy> {
    const source = new StoredPolicy(store, onError);
    let stored = await store.policy();
    if (file !== undefined) {
      const text = readFileSync(file, 'utf8');
      parsePolicy(text, basename(file)); // a bad file stops the start, as without a database
      const digest = `sha256:${createHash('sha256').update(text).digest('hex')}`;
      if (stored?.sourceDigest !== digest) stored = await store.savePolicy(text, digest);
    }
    if (stored !== undefined) {
      source.#text = stored.text;
      source.#policy = parsePolicy(stored.text, 'the stored policy');
    }
    return source;
  }

  get text(): string | undefined {
    return this.#text;
  }

  get policy(): PolicyDocument {
    return this.#policy;
  }

  onChange(listener: (policy: PolicyDocument) => void): void {
    this.#listeners.push(listener);
  }

  async write(text: string): Promise<PolicyDocument> {
    const policy = parsePolicy(text, 'policy');
    await this.store.savePolicy(text);
    this.#apply(text, policy);
    return policy;
  }

  /** Reads the stored policy again (another replica changed it); a text that does not parse is reported and ignored. */
  async reload(): Promise<boolean> {
    let stored;
    try {
      stored = await this.store.policy();
    } catch (error) {
      this.onError(`policy: cannot read it from the store (${(error as Error).message}); keeping the policy in force`);
      return false;
    }
    if (stored === undefined || stored.text === this.#text) return false;
    try {
      this.#apply(stored.text, parsePolicy(stored.text, 'the stored policy'));
      return true;
    } catch (error) {
      this.onError(`${(error as Error).message}; keeping the policy in force`);
      return false;
    }
  }

  /** Changes arrive through the access store's watch (AccessControl listens and calls `reload`). */
  watch(): void {}

  close(): void {}

  #apply(text: string, policy: PolicyDocument): void {
    this.#text = text;
    this.#policy = policy;
    for (const listener of this.#listeners) listener(policy);
  }
}
