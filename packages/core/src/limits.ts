/**
 * Publication limits. The Skills extension says servers SHOULD NOT serve a skill past 512 files or 16 MiB;
 * the frontmatter cap is our own guard against hostile SKILL.md files (megabytes of YAML, alias bombs).
 */
export interface SkillLimits {
  /** Files per skill, SKILL.md included. */
  maxFiles: number;
  /** Total bytes per skill. */
  maxBytes: number;
  /** Bytes of YAML frontmatter we agree to parse. */
  maxFrontmatterBytes: number;
  /** Directory depth inside one skill. */
  maxDepth: number;
}

export const DEFAULT_LIMITS: Readonly<SkillLimits> = Object.freeze({
  maxFiles: 512,
  maxBytes: 16 * 1024 * 1024,
  maxFrontmatterBytes: 64 * 1024,
  maxDepth: 32,
});

export function resolveLimits(partial?: Partial<SkillLimits>): SkillLimits {
  const limits = { ...DEFAULT_LIMITS, ...partial };
  for (const [key, value] of Object.entries(limits)) {
    if (!Number.isInteger(value) || value <= 0) throw new RangeError(`limit ${key} must be a positive integer (got ${value})`);
  }
  return limits;
}

/** 16777216 -> "16 MiB", 1536 -> "1.5 KiB". */
export function formatBytes(bytes: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} bytes` : `${Number(value.toFixed(1))} ${units[unit]}`;
}
