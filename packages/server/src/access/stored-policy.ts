import { createHash } from 'node:crypto';
import { PolicyFile } from './policy-file.js';
import { OPEN_POLICY, parsePolicy } from './policy.js';
import type { PolicyDocument } from './policy.js';
import type { PolicySource } from './policy-source.js';
import type { AccessStore } from './store.js';

/**
 * The policy kept in the access store. With `--policy FILE` the file is imported at start when its text differs
 * from the text last imported from a file (by digest), so a restart with the same file keeps edits made through
 * the admin API, and a new file (a deploy) replaces them. The file is watched as without a database: a change
 * that parses is stored (and so reaches every replica). Without a file, the stored policy (if any) is in force.
 */
export class StoredPolicy implements PolicySource {
  #text: string | undefined;
  #policy: PolicyDocument = OPEN_POLICY;
  #listeners: Array<(policy: PolicyDocument) => void> = [];
  #file: PolicyFile | undefined;

  private constructor(
    readonly store: AccessStore,
    readonly onError: (message: string) => void,
  ) {}

  static async open(store: AccessStore, file: string | undefined, onError: (message: string) => void = () => {}): Promise<StoredPolicy> {
    const source = new StoredPolicy(store, onError);
    let stored = await store.policy();
    if (file !== undefined) {
      // Read and checked as without a database: a bad file stops the start.
      source.#file = new PolicyFile(file, onError);
      const digest = digestOf(source.#file.text);
      if (stored?.sourceDigest !== digest) stored = await store.savePolicy(source.#file.text, digest);
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

  /** Other replicas' changes arrive through the access store's watch (AccessControl calls `reload`); the file is watched here. */
  watch(): void {
    const file = this.#file;
    if (file === undefined) return;
    file.onChange((policy) => void this.#importFile(file.text, policy));
    file.watch();
  }

  async #importFile(text: string, policy: PolicyDocument): Promise<void> {
    try {
      await this.store.savePolicy(text, digestOf(text));
    } catch (error) {
      this.onError(`policy ${this.#file?.path}: changed, but it cannot be stored (${(error as Error).message}); keeping the policy in force`);
      return;
    }
    this.#apply(text, policy);
  }

  close(): void {
    this.#file?.close();
  }

  #apply(text: string, policy: PolicyDocument): void {
    this.#text = text;
    this.#policy = policy;
    for (const listener of this.#listeners) listener(policy);
  }
}

function digestOf(text: string): string {
  return `sha256:${createHash('sha256').update(text).digest('hex')}`;
}
