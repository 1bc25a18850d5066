import { randomUUID } from 'node:crypto';
import { SkillError } from '../errors.js';
import type { SkillDescriptor, SkillTemplate } from '../model.js';
import type { SkillSource } from '../sources/source.js';
import { printable } from '../verify.js';

/** A question for the user about a template skill: serialisable, answered later with `answer(id, value)`. */
export interface TemplateInputRequest {
  kind: 'skill-template-input';
  id: string;
  origin: string;
  uriTemplate: string;
  description: string;
  variable: string;
  /** 0-based position of `variable` among the template's variables. */
  position: number;
  variables: string[];
  /** Values chosen so far for the earlier variables. */
  context: Record<string, string>;
  /** Suggestions from completion/complete (at most 100). */
  values: string[];
  hasMore: boolean;
  total?: number;
}

export type TemplateSelector = (request: TemplateInputRequest) => Promise<string | undefined> | string | undefined;

/**
 * Template skills, one question per variable: each question carries the completion server's suggestions given the
 * earlier answers, survives serialisation (a host may ask the user later), and the last answer names the concrete
 * skill, which the source resolves. Values are plain segments: no `/`, `\`, NUL, `.` or `..`.
 */
export class TemplateQuestions {
  private readonly chosen: Record<string, Record<string, string>> = {};
  private readonly pending = new Map<string, TemplateInputRequest>();

  constructor(
    private readonly source: (origin: string) => SkillSource | undefined,
    state?: { templateValues: Record<string, Record<string, string>>; pending: TemplateInputRequest[] },
  ) {
    if (state) {
      Object.assign(this.chosen, state.templateValues);
      for (const request of state.pending) this.pending.set(request.id, request);
    }
  }

  /** The first question for a template (or the next, if some values were already chosen). */
  request(template: SkillTemplate): Promise<TemplateInputRequest> {
    const chosen = { ...(this.chosen[templateKey(template)] ?? {}) };
    const position = template.variables.findIndex((variable) => chosen[variable] === undefined);
    return this.question(template, position < 0 ? 0 : position, position < 0 ? {} : chosen);
  }

  async question(template: SkillTemplate, position: number, context: Record<string, string>): Promise<TemplateInputRequest> {
    const source = this.source(template.origin);
    const variable = template.variables[position]!;
    const completion = source?.complete ? await source.complete(template, variable, '', context) : { values: [], hasMore: true };
    const request: TemplateInputRequest = {
      kind: 'skill-template-input',
      id: randomUUID(),
      origin: template.origin,
      uriTemplate: template.uriTemplate,
      description: template.description,
      variable,
      position,
      variables: template.variables,
      context,
      values: completion.values,
      hasMore: completion.hasMore,
      ...(completion.total !== undefined ? { total: completion.total } : {}),
    };
    this.pending.set(request.id, request);
    return request;
  }

  /** Questions asked and not answered yet. */
  unanswered(): TemplateInputRequest[] {
    return [...this.pending.values()];
  }

  /** Forgets a question the host will not answer. */
  drop(requestId: string): void {
    this.pending.delete(requestId);
  }

  /** Answers a question: the next question, or the skill the source resolved once every variable has a value. */
  async answer(requestId: string, value: string): Promise<{ request: TemplateInputRequest } | { descriptor: SkillDescriptor }> {
    const request = this.pending.get(requestId);
    if (!request) throw new SkillError('template', `no pending template question '${printable(requestId)}'`);
    if (typeof value !== 'string' || value === '' || /[/\\\0]/.test(value) || value === '.' || value === '..') {
      throw new SkillError('template', `'${printable(String(value))}' is not a valid value for {${request.variable}}`);
    }
    this.pending.delete(requestId);
    const template: SkillTemplate = {
      origin: request.origin,
      uriTemplate: request.uriTemplate,
      description: request.description,
      variables: request.variables,
    };
    const context = { ...request.context, [request.variable]: value };
    this.chosen[templateKey(template)] = context;
    if (request.position + 1 < request.variables.length) return { request: await this.question(template, request.position + 1, context) };
    const source = this.source(template.origin);
    if (!source?.resolveTemplate) throw new SkillError('template', `origin '${template.origin}' cannot resolve templates`);
    return { descriptor: await source.resolveTemplate(template, context) };
  }

  /** Values chosen for each template, by `origin uriTemplate`. */
  values(): Record<string, Record<string, string>> {
    return structuredClone(this.chosen);
  }
}

function templateKey(template: SkillTemplate): string {
  return `${template.origin} ${template.uriTemplate}`;
}
