import { oneLine as coreOneLine } from '@skillport/core';
/**
 * Every failure the library reports is a `SkillError` with a one-line message a model (or a person) can act on.
 * `code` lets a host branch without parsing text.
 */
export type SkillErrorCode =
  | 'not-found'
  | 'unlisted'
  | 'digest'
  | 'size'
  | 'frontmatter'
  | 'path'
  | 'too-large'
  | 'origin'
  | 'unavailable'
  | 'invalid'
  | 'template';

export class SkillError extends Error {
  override name = 'SkillError';
  constructor(
    readonly code: SkillErrorCode,
    message: string,
    options?: ErrorOptions,
  ) {
    super(oneLine(message), options);
  }
}

/** Verification failures: the bytes are refused and never reach the model. */
export class VerificationError extends SkillError {
  override name = 'VerificationError';
  constructor(
    code: 'unlisted' | 'digest' | 'size' | 'frontmatter',
    readonly uri: string,
    message: string,
  ) {
    super(code, message);
  }
}

/** One line of at most 1000 characters (core's oneLine). */
export function oneLine(text: string): string {
  return coreOneLine(text, 1000);
}

export function describeError(error: unknown): string {
  if (error instanceof Error) return oneLine(error.message.replace(/^MCP error -?\d+: /, ''));
  return oneLine(String(error));
}
