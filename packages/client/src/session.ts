import { canonicalSkillUri, sha256Digest } from '@skillport/core';
import type { Availability, AvailableCapabilities } from '@skillport/core';
import { availabilityOf, availabilityRank, availabilitySummary, readinessText, requirementsOf } from './availability.js';
import { DIRECT_REFERENCES_NOTE, DEFAULT_INSTRUCTIONS_TEMPLATE, escapeXml, renderCatalog } from './catalog.js';
import { SkillError, describeError } from './errors.js';
import type { LoadedSkill, SkillDescriptor, SkillTemplate, VerifiedFile } from './model.js';
import { skillKey } from './model.js';
import type { CatalogSkill } from './model.js';
import { ReferenceTracker } from './session/references.js';
import { allowedTools, fileContent, skillContent } from './session/rendering.js';
import { TemplateQuestions } from './session/templates.js';
import type { TemplateInputRequest, TemplateSelector } from './session/templates.js';
import type { SkillSource } from './sources/source.js';
import { checkBytes, printable } from './verify.js';

export type { TemplateInputRequest, TemplateSelector } from './session/templates.js';

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
  /**
   * What this host has (its MCP servers, its tools, its own agent name): skills whose requirements it lacks are marked
   * in `<available_skills>` (or left out, `unmet: 'omit'`), listed after ready ones, and load_skill says what is missing.
   * `availableFromToolNames` fills it from the tool names the host gives its model.
   */
  available?: AvailableCapabilities;
  /** Skills whose requirements are unmet: `mark` them in the catalog (default) or `omit` them from it. */
  unmet?: 'mark' | 'omit';
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

export interface ExportedSkills {
  version: 1;
  skills: Array<{
    origin: string;
    uri: string;
    name: string;
    packageDigest?: string;
    skillMdDigest: string;
    skill: SkillDescriptor;
    /** Whether the skill was ready in the exporting host: a delegated agent knows what it must have too. */
    readiness?: Availability;
  }>;
}

export interface SessionState {
  version: 1;
  active: ActiveSkill[];
  resolved: SkillDescriptor[];
  templateValues: Record<string, Record<string, string>>;
  pending: TemplateInputRequest[];
  references: Record<string, string[]>;
}

export class SkillSession {
  private readonly active = new Map<string, ActiveSkill>();
  private readonly resolved: SkillDescriptor[] = [];
  private readonly questions: TemplateQuestions;
  /** skill:// URIs that content from each origin mentioned: the only ones read_skill_uri may follow there. */
  private readonly references: ReferenceTracker;

  constructor(
    readonly set: SessionCatalog,
    readonly options: SessionOptions = {},
    state?: SessionState,
  ) {
    if (state !== undefined && state?.version !== 1) throw new SkillError('invalid', 'session state is not version 1');
    for (const active of state?.active ?? []) this.active.set(skillKey(active.skill), active);
    this.resolved.push(...(state?.resolved ?? []));
    this.questions = new TemplateQuestions((origin) => set.source(origin), state);
    this.references = new ReferenceTracker(options.directReferences === true, state?.references);
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
    const all = await this.skills();
    const judged = all.map((skill) => ({ skill, availability: this.availability(skill) }));
    const kept = this.options.unmet === 'omit' ? judged.filter((item) => item.availability.status !== 'needs') : judged;
    const skills = kept.map((item) => item.skill);
    const parts: string[] = [];
    const catalog = renderCatalog(
      kept.map(({ skill, availability }) => ({
        id: skill.id,
        description: skill.description,
        origin: skill.origin,
        rank: availabilityRank(availability),
        ...(availability.status !== 'ready' ? { availability: availabilitySummary(availability) } : {}),
      })),
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

  /** Whether a skill can work in this host (its requirements against `options.available` and the server's verdict). */
  availability(skill: SkillDescriptor): Availability {
    return availabilityOf(skill, this.options.available);
  }

  /** What the model is told before a skill's instructions when it is not plainly ready here; undefined otherwise. */
  readiness(skill: SkillDescriptor): string | undefined {
    const availability = this.availability(skill);
    if (availability.status === 'ready') return undefined;
    const text = readinessText(requirementsOf(skill), availability);
    return text === undefined
      ? undefined
      : `<skill_readiness name="${escapeXml(skill.name)}" status="${availability.status}">${text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}</skill_readiness>`;
  }

  /** Finds a skill by its model-facing id, or by name when only one origin serves it. */
  async find(name: string): Promise<CatalogSkill> {
    const skills = await this.skills();
    const exact = skills.find((skill) => skill.id === name);
    if (exact) return exact;
    const byName = skills.filter((skill) => skill.name === name);
    if (byName.length === 1) return byName[0]!;
    if (byName.length > 1)
      throw new SkillError(
        'not-found',
        `Skill '${printable(name)}' is served by several origins; use one of: ${byName
          .map((skill) => skill.id)
          .sort()
          .join(', ')}`,
      );
    const close = skills.filter((skill) => skill.id.includes(name) || name.includes(skill.name)).slice(0, 5);
    throw new SkillError(
      'not-found',
      `Skill '${printable(name)}' not found.${close.length ? ` Did you mean: ${close.map((skill) => skill.id).join(', ')}?` : ' Use a name from <available_skills>.'}`,
    );
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
    const content = skillContent(skill, loaded, approved ? tools : undefined, this.mark, pinned.packageDigest);
    return {
      id: skill.id,
      skill: pinned,
      content,
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
        throw new SkillError(
          'digest',
          `'${file.path}' of skill '${skill.id}' changed since the skill was activated: refused; the session keeps the version it pinned`,
        );
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
    const listed = (await this.skills()).some(
      (skill) => skill.origin === origin && (skill.uri === canonical || skill.files?.some((file) => file.uri === canonical)),
    );
    if (!listed && !this.references.has(origin, canonical)) {
      throw new SkillError(
        'origin',
        `${canonical} was not mentioned by content from '${origin}'; read only skill:// URIs that appear after an [Origin: ${origin}] marker, with that origin`,
      );
    }
    const file = await source.readUri(canonical);
    return { file, content: this.present(origin, undefined, file, 0) };
  }

  private present(origin: string, skillId: string | undefined, file: VerifiedFile, offset: number): string {
    return fileContent(origin, skillId, file, offset, this.options, this.mark);
  }

  private readonly mark = (origin: string, text: string): string => this.references.mark(origin, text);

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
        readiness: this.availability(active.skill),
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
        if (item.packageDigest && skill.packageDigest && item.packageDigest !== skill.packageDigest)
          throw new SkillError('digest', `'${item.name}' changed since it was exported`);
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
  requestTemplateInput(template: SkillTemplate): Promise<TemplateInputRequest> {
    return this.questions.request(template);
  }

  /** Questions asked and not answered yet (they survive serialisation). */
  pendingInputs(): TemplateInputRequest[] {
    return this.questions.unanswered();
  }

  /** Answers a question: the next question, or the resolved skill once every variable has a value. */
  async answer(requestId: string, value: string): Promise<{ request: TemplateInputRequest } | { skill: CatalogSkill }> {
    const step = await this.questions.answer(requestId, value);
    if ('request' in step) return step;
    const descriptor = step.descriptor;
    if (!this.resolved.some((skill) => skillKey(skill) === skillKey(descriptor))) this.resolved.push(descriptor);
    const skill = (await this.skills()).find((candidate) => skillKey(candidate) === skillKey(descriptor))!;
    return { skill };
  }

  /** Resolves a template with a selector callback (variables in order, earlier values as context). */
  async resolveTemplate(template: SkillTemplate, select: TemplateSelector): Promise<CatalogSkill | undefined> {
    let step: { request: TemplateInputRequest } | { skill: CatalogSkill } = { request: await this.questions.question(template, 0, {}) };
    while ('request' in step) {
      const value = await select(step.request);
      if (value === undefined) {
        this.questions.drop(step.request.id);
        return undefined;
      }
      step = await this.answer(step.request.id, value);
    }
    return step.skill;
  }

  /** Values chosen for each template, by `origin uriTemplate`. */
  chosenTemplateValues(): Record<string, Record<string, string>> {
    return this.questions.values();
  }

  // ---- serialisation ----

  toJSON(): SessionState {
    return {
      version: 1,
      active: [...this.active.values()],
      resolved: [...this.resolved],
      templateValues: this.questions.values(),
      pending: this.questions.unanswered(),
      references: this.references.toJSON(),
    };
  }
}
