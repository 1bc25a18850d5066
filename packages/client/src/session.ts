import { randomUUID } from 'node:crypto';
import { canonicalSkillUri, sha256Digest } from '@skillport/core';
import { DIRECT_REFERENCES_NOTE, DEFAULT_INSTRUCTIONS_TEMPLATE, escapeXml, renderCatalog } from './catalog.js';
import { SkillError, describeError } from './errors.js';
import type { LoadedSkill, SkillDescriptor, SkillTemplate, VerifiedFile } from './model.js';
import { skillKey } from './model.js';
import type { CatalogSkill } from './model.js';
import type { SkillSource } from './sources/source.js';
import { checkBytes, printable } from './verify.js';

/** What a session needs of the skill set it was made from (SkillSet implements it; the set makes its sessions). */
export interface SessionCatalog {
  readonly origins: string[];
  source(origin: string): SkillSource | undefined;
  withExtra(extra: readonly SkillDescriptor[]): Promise<CatalogSkill[]>;
  templates(): Promise<SkillTemplate[]>;
}

/**
 * One conversation's use of a skill set: what the model is told (instructions with the catalog), the tools it
 * calls, and what it has activated. Activated skills are pinned: their files are read against the digests seen
 * at activation, so a server that changes mid-session cannot swap content under the model. Activating twice is
 * answered without a read; `reinject()` gives back every active skill after the host compacts the context;
 * `export()` hands the active set to a delegated agent; the whole state serialises with `toJSON()`.
 */
export interface SessionOptions {
  /** Offer `read_skill_uri` and mark content holding `skill://` URIs with `[Origin: X]`. Default false. */
  directReferences?: boolean;
  /** Append each server's instructions (tagged with its origin). Default false. */
  includeServerInstructions?: boolean;
  /** Instructions around the catalog: a string with `{available_skills}`, or a function of the XML. */
  instructionsTemplate?: string | ((xml: string, skills: readonly CatalogSkill[]) => string);
  /** Decides whether a skill's `allowed-tools` are honoured; without it they are ignored (the spec's rule for MCP skills). */
  approveAllowedTools?: (skill: SkillDescriptor, tools: string[]) => boolean;
  /** Largest text one read returns (default 256 KiB); larger files are read in parts with offset. */
  maxTextBytes?: number;
  /** Largest binary inlined as base64 (default 64 KiB). */
  maxBinaryBytes?: number;
}

export interface ActiveSkill {
  id: string;
  skill: SkillDescriptor;
  /** What the model was given (verified at activation); re-injected as is. */
  content: string;
  /** Digest of SKILL.md as activated. */
  skillMdDigest: string;
  allowedTools?: string[];
}

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

export interface ExportedSkills {
  version: 1;
  skills: Array<{ origin: string; uri: string; name: string; packageDigest?: string; skillMdDigest: string; skill: SkillDescriptor }>;
}

export interface SessionState {
  version: 1;
  active: ActiveSkill[];
  resolved: SkillDescriptor[];
  templateValues: Record<string, Record<string, string>>;
  pending: TemplateInputRequest[];
  references: Record<string, string[]>;
}

const SKILL_URI_PATTERN = /skill:\/\/[^\s"'<>()`\]\[]+/g;

export class SkillSession {
  private readonly active = new Map<string, ActiveSkill>();
  private readonly resolved: SkillDescriptor[] = [];
  private readonly templateValues: Record<string, Record<string, string>> = {};
  private readonly pending = new Map<string, TemplateInputRequest>();
  /** skill:// URIs that content from each origin mentioned: the only ones read_skill_uri may follow there. */
  private readonly references = new Map<string, Set<string>>();

  constructor(
    readonly set: SessionCatalog,
    readonly options: SessionOptions = {},
    state?: SessionState,
  ) {
    if (state) this.restore(state);
  }

  static fromJSON(set: SessionCatalog, state: SessionState | string, options: SessionOptions = {}): SkillSession {
    return new SkillSession(set, options, typeof state === 'string' ? (JSON.parse(state) as SessionState) : state);
  }

  /** The skills the model may use (the set's catalog plus resolved template skills). */
  async skills(): Promise<CatalogSkill[]> {
    return this.set.withExtra(this.resolved);
  }

  /** The model's instructions: catalog (omitted when empty) and, on request, each server's instructions. */
  async instructions(): Promise<string> {
    const skills = await this.skills();
    const parts: string[] = [];
    const catalog = renderCatalog(
      skills.map((skill) => ({ id: skill.id, description: skill.description, origin: skill.origin })),
      typeof this.options.instructionsTemplate === 'function'
        ? (xml) => (this.options.instructionsTemplate as (xml: string, skills: readonly CatalogSkill[]) => string)(xml, skills)
        : (this.options.instructionsTemplate ?? DEFAULT_INSTRUCTIONS_TEMPLATE),
    );
    if (catalog) parts.push(catalog);
    if (this.options.includeServerInstructions) {
      for (const origin of this.set.origins) {
        const text = await this.set
          .source(origin)
          ?.instructions?.()
          .catch(() => undefined);
        if (text?.trim()) parts.push(`<server_instructions origin="${escapeXml(origin)}">\n${this.mark(origin, text.trim())}\n</server_instructions>`);
      }
    }
    if (this.options.directReferences && parts.length > 0) parts.push(DIRECT_REFERENCES_NOTE);
    return parts.join('\n\n');
  }

  /** Finds a skill by its model-facing id, or by name when only one origin serves it. */
  async find(name: string): Promise<CatalogSkill> {
    const skills = await this.skills();
    const exact = skills.find((skill) => skill.id === name);
    if (exact) return exact;
    const byName = skills.filter((skill) => skill.name === name);
    if (byName.length === 1) return byName[0]!;
    if (byName.length > 1) throw new SkillError('not-found', `Skill '${printable(name)}' is served by several origins; use one of: ${byName.map((skill) => skill.id).sort().join(', ')}`);
    const close = skills.filter((skill) => skill.id.includes(name) || name.includes(skill.name)).slice(0, 5);
    throw new SkillError('not-found', `Skill '${printable(name)}' not found.${close.length ? ` Did you mean: ${close.map((skill) => skill.id).join(', ')}?` : ' Use a name from <available_skills>.'}`);
  }

  /** Activates a skill: reads and verifies SKILL.md (once per session), pins it, returns what the model sees. */
  async activate(name: string): Promise<{ skill: CatalogSkill; content: string; alreadyActive: boolean }> {
    const skill = await this.find(name);
    const key = skillKey(skill);
    const current = this.active.get(key);
    if (current) return { skill, content: current.content, alreadyActive: true };
    const source = this.sourceOf(skill);
    const loaded = await source.load(skill);
    const active = this.activation(skill, loaded);
    this.active.set(key, active);
    return { skill, content: active.content, alreadyActive: false };
  }

  private activation(skill: CatalogSkill, loaded: LoadedSkill): ActiveSkill {
    const { id: _id, ...descriptor } = skill;
    // Sources that only learn a skill's files when loading it (tools, archives) pin what the load reported.
    const files = skill.files ?? (loaded.resources.length ? [{ path: 'SKILL.md', uri: skill.uri }, ...loaded.resources] : undefined);
    const pinned: SkillDescriptor = { ...descriptor, ...(files ? { files } : {}) };
    const tools = allowedTools(loaded.frontmatter);
    const approved = tools.length > 0 && this.options.approveAllowedTools?.(pinned, tools) === true;
    const digest = pinned.packageDigest ? ` digest="${pinned.packageDigest}"` : '';
    const verified = loaded.file.verified ? '' : ' verified="false"';
    const body = loaded.body.replace(/<\/skill_content/gi, '<\\/skill_content').trim();
    const lines = [
      `<skill_content name="${escapeXml(skill.id)}" origin="${escapeXml(skill.origin)}" uri="${escapeXml(skill.uri)}"${digest}${verified}>`,
      this.mark(skill.origin, body),
      '</skill_content>',
    ];
    if (approved) lines.push(`Pre-approved tools for this skill: ${tools.join(' ')}`);
    const resources = loaded.resources;
    if (resources.length > 0) {
      lines.push(
        '',
        `<skill_resources count="${resources.length}">`,
        ...resources.map((file) => `${file.path}${file.size !== undefined ? ` (${file.size} bytes)` : ''}`),
        '</skill_resources>',
        `Read a file only when the instructions call for it: read_skill_resource {"name": "${skill.id}", "path": "<path above>"}.`,
      );
    }
    return {
      id: skill.id,
      skill: pinned,
      content: lines.join('\n'),
      skillMdDigest: sha256Digest(loaded.file.bytes),
      ...(approved ? { allowedTools: tools } : {}),
    };
  }

  /** One file of an activated (or activatable) skill, checked against the digests pinned at activation. */
  async readResource(name: string, path: string, offset = 0): Promise<{ file: VerifiedFile; content: string }> {
    const skill = await this.find(name);
    // Reading a file is acting on the skill: activate it first (pinning its digests) if the model has not.
    if (!this.active.has(skillKey(skill))) await this.activate(name);
    const pinned = this.active.get(skillKey(skill))!.skill;
    const file = await this.sourceOf(skill).readFile(pinned, path);
    const entry = pinned.files?.find((candidate) => candidate.path === file.path);
    if (entry?.digest) {
      try {
        checkBytes(entry, file.bytes);
      } catch {
        throw new SkillError('digest', `'${file.path}' of skill '${skill.id}' changed since the skill was activated: refused; the session keeps the version it pinned`);
      }
    }
    return { file, content: this.present(skill.origin, skill.id, file, offset) };
  }

  /** A direct skill:// reference, read only on the origin whose content mentioned it. */
  async readUri(uri: string, origin: string): Promise<{ file: VerifiedFile; content: string }> {
    if (!this.options.directReferences) throw new SkillError('invalid', 'Direct skill:// references are not enabled in this session');
    const source = this.set.source(origin);
    if (!source) throw new SkillError('origin', `Unknown origin '${printable(origin)}'. Origins: ${this.set.origins.join(', ')}`);
    if (!source.readUri) throw new SkillError('origin', `Origin '${origin}' cannot read skill:// URIs`);
    const canonical = canonicalSkillUri(uri);
    if (canonical === undefined) throw new SkillError('path', `'${printable(uri)}' is not a valid skill:// URI`);
    const listed = (await this.skills()).some((skill) => skill.origin === origin && (skill.uri === canonical || skill.files?.some((file) => file.uri === canonical)));
    if (!listed && !this.references.get(origin)?.has(canonical)) {
      throw new SkillError('origin', `${canonical} was not mentioned by content from '${origin}'; read only skill:// URIs that appear after an [Origin: ${origin}] marker, with that origin`);
    }
    const file = await source.readUri(canonical);
    return { file, content: this.present(origin, undefined, file, 0) };
  }

  private present(origin: string, skillId: string | undefined, file: VerifiedFile, offset: number): string {
    const attrs = `${skillId ? ` skill="${escapeXml(skillId)}"` : ''} origin="${escapeXml(origin)}" ${skillId ? `path="${escapeXml(file.path)}"` : `uri="${escapeXml(file.uri)}"`}${file.verified ? '' : ' verified="false"'}`;
    if (file.text === undefined) {
      const max = this.options.maxBinaryBytes ?? 64 * 1024;
      const envelope: Record<string, unknown> = { path: file.path, mediaType: file.mimeType ?? 'application/octet-stream', size: file.bytes.byteLength, digest: sha256Digest(file.bytes) };
      if (file.bytes.byteLength <= max) Object.assign(envelope, { encoding: 'base64', data: Buffer.from(file.bytes).toString('base64') });
      else envelope['note'] = `binary file over the ${max}-byte inline limit: not included`;
      return `<skill_resource${attrs}>\n${JSON.stringify(envelope)}\n</skill_resource>`;
    }
    const max = this.options.maxTextBytes ?? 256 * 1024;
    const bytes = Buffer.from(file.text, 'utf8');
    let text = file.text;
    let note = '';
    if (offset > 0 || bytes.byteLength > max) {
      if (offset >= bytes.byteLength && bytes.byteLength > 0) throw new SkillError('invalid', `offset ${offset} is past the end of '${file.path}' (${bytes.byteLength} bytes)`);
      let start = offset;
      while (start > 0 && (bytes[start]! & 0xc0) === 0x80) start--;
      let end = Math.min(bytes.byteLength, start + max);
      while (end < bytes.byteLength && end > start && (bytes[end]! & 0xc0) === 0x80) end--;
      text = bytes.subarray(start, end).toString('utf8');
      note = `\n[bytes ${start}-${end} of ${bytes.byteLength}${end < bytes.byteLength ? `; read the rest with offset ${end}` : '; end of file'}]`;
    }
    const safe = text.replace(/<\/skill_resource/gi, '<\\/skill_resource');
    return `<skill_resource${attrs}>\n${this.mark(origin, safe)}${note}\n</skill_resource>`;
  }

  /** Adds the [Origin: X] marker when the content mentions skill:// URIs (and direct references are on). */
  private mark(origin: string, text: string): string {
    if (!this.options.directReferences) return text;
    const found = text.match(SKILL_URI_PATTERN);
    if (!found) return text;
    let seen = this.references.get(origin);
    if (!seen) this.references.set(origin, (seen = new Set()));
    for (const uri of found) {
      const canonical = canonicalSkillUri(uri.replace(/[.,;:!?]+$/, ''));
      if (canonical) seen.add(canonical);
    }
    return `[Origin: ${origin}]\n${text}`;
  }

  private sourceOf(skill: SkillDescriptor) {
    const source = this.set.source(skill.origin);
    if (!source) throw new SkillError('origin', `no source for origin '${skill.origin}'`);
    return source;
  }

  /** Every active skill's content, in activation order, for the host to put back after compacting the context. */
  reinject(): string {
    return [...this.active.values()].map((active) => active.content).join('\n\n');
  }

  get activeSkills(): readonly ActiveSkill[] {
    return [...this.active.values()];
  }

  /** Tools the host approved through `approveAllowedTools`, per active skill id. */
  allowedTools(): Record<string, string[]> {
    return Object.fromEntries([...this.active.values()].filter((active) => active.allowedTools).map((active) => [active.id, active.allowedTools!]));
  }

  /** The active skills, pinned, for a delegated agent (`importActive` on its own session). */
  export(): ExportedSkills {
    return {
      version: 1,
      skills: [...this.active.values()].map((active) => ({
        origin: active.skill.origin,
        uri: active.skill.uri,
        name: active.skill.name,
        ...(active.skill.packageDigest ? { packageDigest: active.skill.packageDigest } : {}),
        skillMdDigest: active.skillMdDigest,
        skill: active.skill,
      })),
    };
  }

  /** Activates what another session exported, refusing any skill whose content is no longer what was pinned. */
  async importActive(exported: ExportedSkills): Promise<{ activated: string[]; refused: string[] }> {
    const activated: string[] = [];
    const refused: string[] = [];
    for (const item of exported.skills) {
      try {
        const skills = await this.skills();
        let skill = skills.find((candidate) => candidate.origin === item.origin && candidate.uri === item.uri);
        if (!skill) {
          this.resolved.push(item.skill);
          skill = (await this.skills()).find((candidate) => candidate.origin === item.origin && candidate.uri === item.uri)!;
        }
        if (item.packageDigest && skill.packageDigest && item.packageDigest !== skill.packageDigest) throw new SkillError('digest', `'${item.name}' changed since it was exported`);
        const { skill: done } = await this.activate(skill.id);
        const active = this.active.get(skillKey(done))!;
        if (active.skillMdDigest !== item.skillMdDigest) {
          this.active.delete(skillKey(done));
          throw new SkillError('digest', `'${item.name}' SKILL.md differs from the exported one`);
        }
        activated.push(done.id);
      } catch (error) {
        refused.push(`${item.name}: ${describeError(error)}`);
      }
    }
    return { activated, refused };
  }

  // ---- template skills ----

  async templates(): Promise<SkillTemplate[]> {
    return this.set.templates();
  }

  /** The first question for a template (or the next, if some values were already chosen). */
  async requestTemplateInput(template: SkillTemplate): Promise<TemplateInputRequest> {
    const key = templateKey(template);
    const chosen = { ...(this.templateValues[key] ?? {}) };
    const position = template.variables.findIndex((variable) => chosen[variable] === undefined);
    return this.question(template, position < 0 ? 0 : position, position < 0 ? {} : chosen);
  }

  private async question(template: SkillTemplate, position: number, context: Record<string, string>): Promise<TemplateInputRequest> {
    const source = this.set.source(template.origin);
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

  /** Questions asked and not answered yet (they survive serialisation). */
  pendingInputs(): TemplateInputRequest[] {
    return [...this.pending.values()];
  }

  /** Answers a question: the next question, or the resolved skill once every variable has a value. */
  async answer(requestId: string, value: string): Promise<{ request: TemplateInputRequest } | { skill: CatalogSkill }> {
    const request = this.pending.get(requestId);
    if (!request) throw new SkillError('template', `no pending template question '${printable(requestId)}'`);
    if (typeof value !== 'string' || value === '' || /[/\\\0]/.test(value) || value === '.' || value === '..') {
      throw new SkillError('template', `'${printable(String(value))}' is not a valid value for {${request.variable}}`);
    }
    this.pending.delete(requestId);
    const template: SkillTemplate = { origin: request.origin, uriTemplate: request.uriTemplate, description: request.description, variables: request.variables };
    const context = { ...request.context, [request.variable]: value };
    this.templateValues[templateKey(template)] = context;
    if (request.position + 1 < request.variables.length) return { request: await this.question(template, request.position + 1, context) };
    const source = this.set.source(template.origin);
    if (!source?.resolveTemplate) throw new SkillError('template', `origin '${template.origin}' cannot resolve templates`);
    const descriptor = await source.resolveTemplate(template, context);
    if (!this.resolved.some((skill) => skillKey(skill) === skillKey(descriptor))) this.resolved.push(descriptor);
    const skill = (await this.skills()).find((candidate) => skillKey(candidate) === skillKey(descriptor))!;
    return { skill };
  }

  /** Resolves a template with a selector callback (variables in order, earlier values as context). */
  async resolveTemplate(template: SkillTemplate, select: TemplateSelector): Promise<CatalogSkill | undefined> {
    let step: { request: TemplateInputRequest } | { skill: CatalogSkill } = { request: await this.question(template, 0, {}) };
    while ('request' in step) {
      const value = await select(step.request);
      if (value === undefined) {
        this.pending.delete(step.request.id);
        return undefined;
      }
      step = await this.answer(step.request.id, value);
    }
    return step.skill;
  }

  /** Values chosen for each template, by `origin uriTemplate`. */
  chosenTemplateValues(): Record<string, Record<string, string>> {
    return structuredClone(this.templateValues);
  }

  // ---- serialisation ----

  toJSON(): SessionState {
    return {
      version: 1,
      active: [...this.active.values()],
      resolved: [...this.resolved],
      templateValues: structuredClone(this.templateValues),
      pending: [...this.pending.values()],
      references: Object.fromEntries([...this.references].map(([origin, uris]) => [origin, [...uris]])),
    };
  }

  private restore(state: SessionState): void {
    if (state?.version !== 1) throw new SkillError('invalid', 'session state is not version 1');
    for (const active of state.active) this.active.set(skillKey(active.skill), active);
    this.resolved.push(...state.resolved);
    Object.assign(this.templateValues, state.templateValues);
    for (const request of state.pending) this.pending.set(request.id, request);
    for (const [origin, uris] of Object.entries(state.references)) this.references.set(origin, new Set(uris));
  }
}

function templateKey(template: SkillTemplate): string {
  return `${template.origin} ${template.uriTemplate}`;
}

function allowedTools(frontmatter: Record<string, unknown>): string[] {
  const value = frontmatter['allowed-tools'];
  if (typeof value === 'string') return value.split(/\s+/).filter(Boolean);
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string');
  return [];
}
