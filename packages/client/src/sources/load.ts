import type { LoadedSkill, SkillDescriptor, VerifiedFile } from '../model.js';
import { checkFrontmatter, parseSkillBytes } from '../verify.js';

/** The common end of every source's `load`: parse SKILL.md, compare its frontmatter with the listing. */
export function finishLoad(skill: SkillDescriptor, file: VerifiedFile, files = skill.files): LoadedSkill {
  const parsed = parseSkillBytes(file.uri, file.bytes);
  // Full comparison when the source listed the whole frontmatter; a draft index lists only name and description.
  checkFrontmatter(file.uri, skill.frontmatter, parsed.frontmatter, skill.verification !== 'digest' || skill.archive !== undefined);
  return {
    skill,
    body: parsed.body,
    frontmatter: parsed.frontmatter,
    resources: (files ?? []).filter((entry) => entry.path !== 'SKILL.md'),
    file: { ...file, text: parsed.text },
  };
}
