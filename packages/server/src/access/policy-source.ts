import type { PolicyDocument } from './policy.js';

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
