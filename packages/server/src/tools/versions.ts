import { entryMetaOf } from '../catalog/catalog-skill.js';
import type { CatalogSkill } from '../catalog/model.js';
import type { CatalogSnapshot } from '../catalog/snapshot.js';

/**
 * Which version of a skill a tool call means. Versions come from the catalog's providers (a registry), never from
 * special cases here: the listed skill is the version a tag points at; another version is found by version, tag or
 * package digest through `snapshot.version`. A session pins what it activated: on a long-lived connection (stdio)
 * later calls without a version keep reading the pinned version even after a newer one is published; on stateless
 * HTTP the pin travels in the call (the exact-version `uri` or the `digest` the activation returned).
 */
export const META_VERSION = 'dev.skillport/version';
export const META_PROVENANCE = 'dev.skillport/provenance';
/** On a version held for review, served to its publisher and reviewers only: what they are told of it. */
export const META_PENDING = 'dev.skillport/pending';

/** The pending note of a version held for review (undefined for every served version). */
export function pendingOf(skill: CatalogSkill): string | undefined {
  const meta = entryMetaOf(skill);
  const pending = meta?.[META_PENDING];
  return typeof pending === 'string' ? pending : undefined;
}

/** Per-session pins: listed skill URI -> URI of the exact version activated. */
export class SessionPins {
  readonly #pins = new Map<string, string>();
  get(listedUri: string): string | undefined {
    return this.#pins.get(listedUri);
  }
  set(listedUri: string, exactUri: string): void {
    this.#pins.set(listedUri, exactUri);
  }
}

export type Chosen = { skill: CatalogSkill; pinnedFrom?: CatalogSkill } | { error: string };

export function versionOf(skill: CatalogSkill): string | undefined {
  const meta = entryMetaOf(skill);
  const version = meta?.[META_VERSION];
  return typeof version === 'string' ? version : undefined;
}

export function chooseVersion(
  snapshot: CatalogSnapshot,
  listed: CatalogSkill,
  request: { version?: string | undefined; digest?: string | undefined },
  pins?: SessionPins,
): Chosen {
  const version = request.version?.trim();
  if (version) {
    const found = snapshot.version(listed.uri, { version });
    if (found === undefined) {
      if (version === 'latest') return { skill: listed };
      return { error: `Error: Skill '${listed.name}' is served from a folder and has no version '${version}'; call again without a version.` };
    }
    return 'refused' in found ? { error: `Error: ${found.refused}` } : { skill: found.skill };
  }
  const digest = request.digest?.trim();
  if (digest && digest !== listed.packageDigest && !listed.files.some((file) => file.digest === digest)) {
    const found = snapshot.version(listed.uri, { digest });
    if (found !== undefined) return 'refused' in found ? { error: `Error: ${found.refused}` } : { skill: found.skill };
  }
  const pinned = pins?.get(listed.uri);
  if (pinned !== undefined) {
    const skill = snapshot.skill(pinned);
    if (skill === undefined) {
      const refused = snapshot.refusal(pinned);
      return {
        error:
          refused !== undefined ? `Error: ${refused}` : `Error: the version of '${listed.name}' this session activated is no longer served; activate it again.`,
      };
    }
    return skill.packageDigest === listed.packageDigest ? { skill } : { skill, pinnedFrom: listed };
  }
  return { skill: listed };
}

/**
 * A call by name for a skill that is known but not listed (every registry version yanked or revoked): with a version,
 * that version (a yanked one stays readable) or its refusal and reason; without, why nothing is listed. Undefined when
 * the name is not known that way (then it is simply not found).
 */
export function chooseUnlisted(
  snapshot: CatalogSnapshot,
  name: string | undefined,
  request: { version?: string | undefined; digest?: string | undefined },
): Chosen | undefined {
  const trimmed = name?.trim();
  const uri = trimmed ? snapshot.unlistedName(trimmed) : undefined;
  if (uri === undefined) return undefined;
  const version = request.version?.trim();
  const digest = request.digest?.trim();
  const found = version ? snapshot.version(uri, { version }) : digest ? snapshot.version(uri, { digest }) : undefined;
  if (found !== undefined) return 'refused' in found ? { error: `Error: ${found.refused}` } : { skill: found.skill };
  const refused = snapshot.refusal(uri);
  return refused === undefined ? undefined : { error: `Error: ${refused}` };
}

/**
 * The exact version of an activated skill (its own URI, so reads by that URI stay on it even over stateless HTTP),
 * pinned for the session. Folder skills, which have no versions, come back as they are and are not pinned.
 */
export function pinExact(snapshot: CatalogSnapshot, listed: CatalogSkill, activated: CatalogSkill, pins: SessionPins): CatalogSkill {
  const version = versionOf(activated);
  if (version === undefined) return activated;
  let exact = activated;
  if (activated.uri === listed.uri) {
    const found = snapshot.version(listed.uri, { version });
    if (found !== undefined && 'skill' in found && found.skill.packageDigest === activated.packageDigest) exact = found.skill;
  }
  pins.set(listed.uri, exact.uri);
  return exact;
}
