import { availabilitySummary, readinessText } from '@skillport/core';
import type { Availability, AvailableCapabilities } from '@skillport/core';
import type { CatalogSkill } from '../catalog/model.js';
import { hintFromMeta } from '../mcp/availability.js';
import { escapeXml } from './catalog-text.js';

/**
 * Readiness in what a model reads: a `<skill_readiness>` block before an activated skill's instructions (what is
 * missing and what to do about it), and a short `<availability>` line in catalogs for skills that are not plainly
 * ready.
 */
export function readinessBlock(skill: CatalogSkill, availability: Availability): string | undefined {
  const text = readinessText(skill.requirements, availability);
  return text === undefined
    ? undefined
    : `<skill_readiness name="${escapeXml(skill.name)}" status="${availability.status}">${escapeText(text)}</skill_readiness>`;
}

/** Element text needs only `&`, `<` and `>` escaped: quotes stay readable for the model. */
function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The catalog line: nothing for a ready skill (the common case costs no tokens). */
export function availabilityLine(availability: Availability): string | undefined {
  return availability.status === 'ready' ? undefined : availabilitySummary(availability);
}

/**
 * What the host said it has, for one session (a server instance per stdio connection): the latest hint given to
 * list_skills (its `available` argument, or `_meta` dev.skillport/available) is used by later calls that carry none.
 * Stateless HTTP has no session: there each request carries its own hint.
 */
export class SessionHint {
  current: AvailableCapabilities | undefined;
  onChange: (() => void) | undefined;

  take(argument: AvailableCapabilities | undefined, meta: unknown): AvailableCapabilities | undefined {
    const given = argument ?? hintFromMeta(meta);
    if (given === undefined) return this.current;
    const changed = JSON.stringify(given) !== JSON.stringify(this.current);
    this.current = given;
    if (changed) this.onChange?.();
    return given;
  }
}
