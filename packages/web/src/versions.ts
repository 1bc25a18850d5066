import type { Principal, SkillVersionInfo } from '@skillport/server';

/**
 * A skill's published versions, as the skill page shows them. The web package does not depend on the registry:
 * `serve --data` gives the registry plugin's (registry/src/plugin.ts: `RegistryPlugin.history`).
 */
export type VersionInfo = SkillVersionInfo;

export interface VersionHistory {
  /**
   * Newest first; undefined when nothing is published under that name. With `viewer`, the versions held for review
   * that it published or reviews are among them (marked `pending`).
   */
  versions(name: string, viewer?: Principal): Promise<VersionInfo[] | undefined>;
}

/** A version waiting for review, as the review page lists it (ADR 0231). */
export interface PendingReview {
  name: string;
  version: string;
  publisher: string;
  publishedAt: string;
  reasons: string[];
  findings: NonNullable<VersionInfo['scan']>['findings'];
  /** Whether the viewer may decide it (a publisher sees its own held versions, without the forms). */
  decidable?: boolean;
}

/**
 * The registry's review queue for the web catalog (registry/src/plugin.ts: `RegistryPlugin.reviews`): for a reviewer
 * (admin scope, or a policy `revoke:` grant) and for publishers' own held versions; names outside the viewer's view
 * are neither listed nor decided.
 */
export interface ReviewQueue {
  pending(reviewer: Principal): Promise<PendingReview[]>;
  decide(name: string, version: string, decision: 'approved' | 'rejected', reason: string, reviewer: Principal): Promise<void>;
}
