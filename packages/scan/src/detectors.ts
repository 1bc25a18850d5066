import type { Finding, Severity } from './model.js';
import type { Rule } from './rules.js';
import { excerptAt, filesIn, lineOf, linesText, lowerFor, test, visible } from './files.js';
import type { ScannedFile, SkillContext } from './files.js';

/**
 * The detectors a rule can name besides `pattern` (rules.ts). Each reads its parameters from the rule (the data);
 * what is code here is only what a regular expression cannot say: which neighbours make a joiner legitimate, the
 * scripts of a word's letters, a file's magic number, the entries of `allowed-tools`.
 */
function finding(rule: Rule, file: string, line: number, column: number, excerpt: string, severity: Severity = rule.severity, note?: string): Finding {
  return { rule: rule.id, category: rule.category, severity, title: rule.title, why: rule.why, file, line, column, excerpt, ...(note ? { note } : {}) };
}

function stringParam(rule: Rule, key: string): string | undefined {
  const value = rule.params[key];
  return typeof value === 'string' ? value : undefined;
}

function numberParam(rule: Rule, key: string, fallback: number): number {
  const value = rule.params[key];
  return typeof value === 'number' ? value : fallback;
}

function listParam(rule: Rule, key: string): string[] {
  const value = rule.params[key];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

function regexParam(rule: Rule, key: string, flags = 'iu'): RegExp[] {
  return listParam(rule, key).map((source) => new RegExp(source, flags));
}

const compiled = new WeakMap<Rule, Map<string, RegExp[]>>();
/** A rule's list of expressions under `key`, compiled once per rule. */
function regexes(rule: Rule, key: string, flags = 'iu'): RegExp[] {
  let byKey = compiled.get(rule);
  if (byKey === undefined) compiled.set(rule, (byKey = new Map()));
  let list = byKey.get(key);
  if (list === undefined) byKey.set(key, (list = regexParam(rule, key, flags)));
  return list;
}

/** A character an emoji ZWJ sequence joins: a pictograph, a skin-tone modifier, or the emoji variation selector. */
const EMOJI = /\p{Extended_Pictographic}|\p{Emoji_Modifier}|\u{FE0F}|\u{20E3}/u;

/**
 * Invisible or reordering characters (`params.chars`, a character class). Exemptions (`params.exempt`): `emoji-joiner`
 * (ZWJ inside an emoji sequence), `script-joiner` (ZWNJ/ZWJ between letters of the scripts in `params.scripts`, as
 * Persian and Indic text use them), `flag-tags` (tag characters of a subdivision flag: U+1F3F4, tags, U+E007F),
 * `leading-bom` (a byte-order mark opening the file). One finding per line, with the count.
 */
export function detectChars(rule: Rule, file: ScannedFile, context: SkillContext): Finding[] {
  const chars = stringParam(rule, 'chars');
  if (chars === undefined) return [];
  const pattern = new RegExp(chars, 'gu');
  const exempt = new Set(listParam(rule, 'exempt'));
  const scripts = listParam(rule, 'scripts').map((script) => new RegExp(`\\p{Script=${script}}`, 'u'));
  const found: Finding[] = [];
  const any = new RegExp(chars, 'u');
  // Most files hold none of these characters: one search of the whole text decides.
  if (!any.test(file.text)) return [];
  const lines = file.text.split('\n');
  lines.forEach((text, index) => {
    if (!any.test(text)) return;
    let count = 0;
    let first = -1;
    const points = [...text];
    let offset = 0;
    for (let i = 0; i < points.length; i++) {
      const char = points[i]!;
      pattern.lastIndex = 0;
      if (pattern.test(char) && !exempted(char, points, i, index === 0 && offset === 0, exempt, scripts)) {
        count++;
        if (first < 0) first = offset;
      }
      offset += char.length;
    }
    if (count === 0) return;
    const line = index + 1;
    const lowered = lowerFor(rule, file, line, context);
    const severity = count >= numberParam(rule, 'high-at', Number.POSITIVE_INFINITY) ? 'high' : (lowered?.to ?? rule.severity);
    const names = [...new Set([...text].filter((char) => (pattern.lastIndex = 0) === 0 && pattern.test(char)))]
      .slice(0, 4)
      .map((char) => `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`);
    found.push(
      finding(
        rule,
        file.path,
        line,
        first + 1,
        excerptAt(file, line, first + 1),
        severity,
        `${count} on this line (${names.join(', ')})${lowered ? `; ${lowered.note}` : ''}`,
      ),
    );
  });
  return found;
}

function exempted(char: string, points: string[], i: number, atStart: boolean, exempt: ReadonlySet<string>, scripts: RegExp[]): boolean {
  const before = points[i - 1] ?? '';
  const after = points[i + 1] ?? '';
  const code = char.codePointAt(0)!;
  if (exempt.has('leading-bom') && code === 0xfeff && atStart) return true;
  if (exempt.has('emoji-joiner') && code === 0x200d && EMOJI.test(before) && EMOJI.test(after)) return true;
  if (exempt.has('script-joiner') && (code === 0x200c || code === 0x200d) && scripts.some((script) => script.test(before) || script.test(after))) return true;
  if (exempt.has('flag-tags') && code >= 0xe0020 && code <= 0xe007f) {
    // Walk back over tag characters to the black flag that opens a subdivision flag sequence.
    let j = i;
    while (j > 0 && points[j - 1]!.codePointAt(0)! >= 0xe0020 && points[j - 1]!.codePointAt(0)! <= 0xe007f) j--;
    let k = i;
    while (k < points.length && points[k]!.codePointAt(0)! !== 0xe007f) k++;
    if (points[j - 1]?.codePointAt(0) === 0x1f3f4 && k < points.length && k - j <= 8) return true;
  }
  return false;
}

const LATIN = /\p{Script=Latin}/u;
const NON_ASCII = /[^\x00-\x7f]/;

/**
 * Words mixing Latin letters with look-alikes from other scripts (the rule set's `confusables`), in the scopes the
 * rule names: `metadata` (the name and description), `file-names` (every path segment), or text. In the name, any
 * look-alike counts (a name written wholly in Cyrillic look-alikes reads as a Latin one).
 */
export function detectMixedScript(rule: Rule, context: SkillContext): Finding[] {
  const confusables = context.rules.confusables;
  const found: Finding[] = [];
  const suspicious = (word: string, anyConfusable: boolean): boolean => {
    const chars = [...word];
    const foreign = chars.some((char) => confusables.has(char) && !LATIN.test(char));
    if (!foreign) return false;
    return anyConfusable || chars.some((char) => LATIN.test(char));
  };
  const words = /[\p{L}\p{M}\p{N}]+(?:[-_.][\p{L}\p{M}\p{N}]+)*/gu;
  if (rule.in.includes('metadata') && context.skillMd !== undefined) {
    const md = context.skillMd;
    for (const key of ['name', 'description'] as const) {
      const value = context.frontmatter[key];
      if (typeof value !== 'string') continue;
      const bad = [...value.matchAll(words)].map((m) => m[0]).filter((word) => suspicious(word, key === 'name'));
      if (bad.length === 0) continue;
      const line = lineOfKey(md, key);
      found.push(finding(rule, md.path, line, 1, excerptAt(md, line, 1), rule.severity, `${key}: ${bad.slice(0, 3).map(describeScripts).join('; ')}`));
    }
  }
  if (rule.in.includes('file-names')) {
    for (const file of context.files) {
      const bad = file.path.split('/').filter((segment) => [...segment.matchAll(words)].some((m) => suspicious(m[0], false)));
      if (bad.length > 0) found.push(finding(rule, file.path, 0, 0, visible(file.path), rule.severity, bad.map(describeScripts).join('; ')));
    }
  }
  for (const file of filesIn(
    rule.in.filter((scope) => scope !== 'metadata' && scope !== 'file-names'),
    context,
  )) {
    // Look-alikes are never ASCII: files and lines of ASCII alone are passed over.
    if (!NON_ASCII.test(file.text)) continue;
    const lines = file.text.split('\n');
    lines.forEach((text, index) => {
      if (!NON_ASCII.test(text)) return;
      const bad = [...text.matchAll(words)].filter((m) => suspicious(m[0], false));
      if (bad.length === 0) return;
      const line = index + 1;
      const lowered = lowerFor(rule, file, line, context);
      found.push(
        finding(
          rule,
          file.path,
          line,
          bad[0]!.index! + 1,
          excerptAt(file, line, bad[0]!.index! + 1),
          lowered?.to ?? rule.severity,
          bad
            .slice(0, 3)
            .map((m) => describeScripts(m[0]))
            .join('; '),
        ),
      );
    });
  }
  return found;
}

const NAMED_SCRIPTS = ['Latin', 'Cyrillic', 'Greek', 'Armenian', 'Cherokee', 'Coptic'].map(
  (script) => [script, new RegExp(`\\p{Script=${script}}`, 'u')] as const,
);

/** `pаypal` → `'p\u{430}ypal' mixes Latin with Cyrillic`. */
function describeScripts(word: string): string {
  const scripts = new Set<string>();
  for (const char of word) {
    for (const [script, pattern] of NAMED_SCRIPTS) if (pattern.test(char)) scripts.add(script);
  }
  const escaped = [...word].map((char) => (char.codePointAt(0)! > 0x7f ? `\\u{${char.codePointAt(0)!.toString(16)}}` : char)).join('');
  return `'${escaped}' mixes ${[...scripts].join(' with ') || 'scripts'}`;
}

function lineOfKey(file: ScannedFile, key: string): number {
  const match = new RegExp(`^${key}\\s*:`, 'm').exec(file.text);
  return match ? lineOf(file, match.index) : 1;
}

/**
 * Long encoded runs (base64 of at least `params.base64-min` characters using upper and lower case letters and
 * digits; hex of at least `params.hex-min`), unless the line matches `params.exempt-lines` (image data URIs,
 * integrity hashes) or the file `params.exempt-files` (lockfiles).
 */
export function detectBlob(rule: Rule, file: ScannedFile, context: SkillContext): Finding[] {
  if (regexes(rule, 'exempt-files').some((pattern) => test(pattern, file.path))) return [];
  const exemptLines = regexes(rule, 'exempt-lines');
  const base64 = new RegExp(`[A-Za-z0-9+/_-]{${numberParam(rule, 'base64-min', 200)},}={0,2}`, 'g');
  const hex = new RegExp(`(?<![0-9A-Za-z])[0-9a-fA-F]{${numberParam(rule, 'hex-min', 256)},}(?![0-9A-Za-z])`, 'g');
  const found: Finding[] = [];
  const lines = file.normal.split('\n');
  lines.forEach((text, index) => {
    if (text.length < Math.min(numberParam(rule, 'base64-min', 200), numberParam(rule, 'hex-min', 256))) return;
    if (exemptLines.some((pattern) => test(pattern, text))) return;
    let hit: RegExpExecArray | null = null;
    for (const match of text.matchAll(base64)) {
      const run = match[0];
      if (/[A-Z]/.test(run) && /[a-z]/.test(run) && /[0-9]/.test(run) && !/^[A-Za-z-_]+$/.test(run)) {
        hit = match as RegExpExecArray;
        break;
      }
    }
    // A hex blob mixes digits and letters (a run of one letter is padding or a test string, not data).
    if (hit === null) for (const match of text.matchAll(hex)) if (/[0-9]/.test(match[0]) && /[a-fA-F]/.test(match[0])) hit ??= match as RegExpExecArray;
    if (hit === null) return;
    const line = index + 1;
    const lowered = lowerFor(rule, file, line, context);
    found.push(
      finding(
        rule,
        file.path,
        line,
        hit.index + 1,
        excerptAt(file, line, hit.index + 1),
        lowered?.to ?? rule.severity,
        `${hit[0].length} encoded characters${lowered ? `; ${lowered.note}` : ''}`,
      ),
    );
  });
  return found;
}

/** A script with a line longer than `params.max-line` characters (minified or packed code no reviewer can read). */
export function detectMinified(rule: Rule, file: ScannedFile): Finding[] {
  if (regexes(rule, 'exempt-files').some((pattern) => test(pattern, file.path))) return [];
  const max = numberParam(rule, 'max-line', 1000);
  const lines = file.text.split('\n');
  const index = lines.findIndex((line) => line.length > max);
  if (index < 0) return [];
  const longest = Math.max(...lines.map((line) => line.length));
  return [finding(rule, file.path, index + 1, 1, excerptAt(file, index + 1, 1), rule.severity, `a line of ${longest} characters`)];
}

/**
 * Entries of the frontmatter's `allowed-tools` (a space- or comma-separated string, or a list; `Tool(spec)` entries
 * keep their commas and spaces) matching any of `params.entries`.
 */
export function detectAllowedTools(rule: Rule, context: SkillContext): Finding[] {
  const md = context.skillMd;
  // Hosts spell the key differently (Claude Code's subagents say `tools`).
  const keys = listParam(rule, 'keys');
  const key = (keys.length > 0 ? keys : TOOL_KEYS).find((name) => context.frontmatter[name] !== undefined && context.frontmatter[name] !== null);
  const value = key === undefined ? undefined : context.frontmatter[key];
  if (md === undefined || key === undefined || value === undefined || value === null) return [];
  const entries = toolEntries(value);
  const patterns = regexes(rule, 'entries', 'u');
  const bad = entries.filter((entry) => patterns.some((pattern) => test(pattern, entry)));
  if (bad.length === 0) return [];
  const line = lineOfKey(md, key);
  return [finding(rule, md.path, line, 1, excerptAt(md, line, 1), rule.severity, `granted: ${bad.slice(0, 5).map(visible).join(', ')}`)];
}

const TOOL_KEYS = ['allowed-tools', 'allowed_tools', 'allowedTools', 'tools'];

export function toolEntries(value: unknown): string[] {
  const items = Array.isArray(value) ? value.map(String) : typeof value === 'string' ? [value] : [];
  const out: string[] = [];
  for (const item of items) {
    let depth = 0;
    let current = '';
    for (const char of item) {
      if (char === '(') depth++;
      if (char === ')') depth = Math.max(0, depth - 1);
      if (depth === 0 && (char === ',' || /\s/.test(char))) {
        if (current.trim() !== '') out.push(current.trim());
        current = '';
        continue;
      }
      current += char;
    }
    if (current.trim() !== '') out.push(current.trim());
  }
  return out;
}

/**
 * Executable binaries shipped in the skill: a magic number of `params.magic` (hex prefixes: ELF, Mach-O, PE, wasm)
 * or an extension of `params.extensions`. One that SKILL.md never names is reported at the rule's severity, one it
 * names at `params.declared-severity`: a reviewer can read a script, not a binary.
 */
export function detectBinary(rule: Rule, context: SkillContext): Finding[] {
  const magic = listParam(rule, 'magic').map((hex) => Buffer.from(hex, 'hex'));
  const extensions = regexes(rule, 'extensions');
  const exempt = regexes(rule, 'exempt-files');
  const declared = rule.params['declared-severity'];
  const skillText = context.skillMd?.normal ?? '';
  const found: Finding[] = [];
  for (const file of context.files) {
    const head = Buffer.from(file.bytes.buffer, file.bytes.byteOffset, Math.min(file.bytes.byteLength, 16));
    const byMagic = magic.find((prefix) => head.subarray(0, prefix.length).equals(prefix));
    const byName = extensions.some((pattern) => test(pattern, file.path));
    if ((byMagic === undefined && !byName) || exempt.some((pattern) => test(pattern, file.path))) continue;
    const base = file.path.split('/').at(-1)!;
    const named = skillText.includes(file.path) || skillText.includes(base);
    const what = byMagic !== undefined ? `executable header ${byMagic.toString('hex')}` : 'binary file type';
    found.push(
      finding(
        rule,
        file.path,
        0,
        0,
        visible(file.path),
        named && typeof declared === 'string' ? (declared as Severity) : rule.severity,
        `${what}; ${named ? 'named in SKILL.md' : 'SKILL.md never mentions it'}`,
      ),
    );
  }
  return found;
}

/**
 * Programs a script runs (`params.calls`: expressions whose `cmd` group is the program) that the skill never declares:
 * not named in SKILL.md (its text, `compatibility`, `allowed-tools`) and not in `params.ignore` (the shell's own
 * commands and the interpreters every skill assumes). One finding per program, where it is first run.
 */
export function detectCommands(rule: Rule, file: ScannedFile, context: SkillContext): Finding[] {
  const ignore = new Set(listParam(rule, 'ignore').map((name) => name.toLowerCase()));
  const declared =
    `${context.skillMd?.normal ?? ''}\n${JSON.stringify(context.frontmatter['compatibility'] ?? '')}\n${JSON.stringify(context.frontmatter['allowed-tools'] ?? '')}`.toLowerCase();
  const found = new Map<string, Finding>();
  // Shell scripts run programs by naming them at the start of a command (`params.shell-calls`).
  const shellFiles = stringParam(rule, 'shell-files');
  const shell = shellFiles !== undefined && new RegExp(shellFiles, 'i').test(file.path) ? regexes(rule, 'shell-calls', 'gm') : [];
  // Here-documents are data, not commands: their bodies are blanked (lines kept, so line numbers hold).
  const text = shell.length > 0 ? withoutHeredocs(file.normal) : file.normal;
  for (const pattern of [...regexes(rule, 'calls', 'gm'), ...shell]) {
    for (const match of (shell.includes(pattern) ? text : file.normal).matchAll(pattern)) {
      const cmd = match.groups?.['cmd'];
      if (cmd === undefined || found.has(cmd)) continue;
      const base = cmd.split('/').at(-1)!.toLowerCase();
      if (ignore.has(base) || base.length < 2) continue;
      // A shell function or variable assignment defined in the same file is not a program.
      if (new RegExp(`(^|\\n)\\s*(function\\s+)?${base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*(\\(\\)|=)`).test(file.normal)) continue;
      if (new RegExp(`(^|[^a-z0-9_-])${base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}([^a-z0-9_-]|$)`).test(declared)) continue;
      const line = lineOf(file, match.index!);
      const column = match.index! - file.lineStarts[line - 1]! + 1;
      found.set(cmd, finding(rule, file.path, line, column, excerptAt(file, line, column), rule.severity, `runs ${visible(base)}, which SKILL.md never names`));
    }
  }
  return [...found.values()];
}

/** Shell text with each here-document's body replaced by empty lines. */
function withoutHeredocs(text: string): string {
  return text.replace(/<<-?\s*(['"]?)([A-Za-z_]\w*)\1[^\n]*\n([\s\S]*?)(\n[ \t]*\2[ \t]*(?=\n|$))/g, (_all, _quote, _tag, body: string, end: string) => {
    const opening = _all.slice(0, _all.length - body.length - end.length);
    return `${opening}${body.replace(/[^\n]/g, '')}${end}`;
  });
}

/**
 * Data flowing out: a line matching one of `params.sources` (credential files, the whole environment, a token
 * command) and one matching `params.sinks` (a network call, an upload, mail) within `params.window` lines of each
 * other (`params.script-window` in scripts, 0 meaning anywhere in the file). Reported on the later of the two lines,
 * once per line; `unless` is tried on both lines.
 */
export function detectFlow(rule: Rule, file: ScannedFile, context: SkillContext): Finding[] {
  const sources = regexes(rule, 'sources', 'gim');
  const named = listParam(rule, 'verbs');
  const verbs = named.length === 2 ? named : ['reads', 'sends'];
  const sinks = regexes(rule, 'sinks', 'gim');
  const window = file.kind === 'script' ? numberParam(rule, 'script-window', numberParam(rule, 'window', 5)) : numberParam(rule, 'window', 5);
  const linesOf = (patterns: RegExp[]): number[] => {
    const lines = new Set<number>();
    for (const pattern of patterns) for (const match of file.normal.matchAll(pattern)) lines.add(lineOf(file, match.index!));
    return [...lines].sort((a, b) => a - b);
  };
  const from = linesOf(sources);
  if (from.length === 0) return [];
  const to = linesOf(sinks);
  const found: Finding[] = [];
  const reported = new Set<number>();
  for (const sink of to) {
    const source = from.find((line) => window === 0 || Math.abs(line - sink) <= window);
    if (source === undefined) continue;
    const at = Math.max(source, sink);
    if (reported.has(at)) continue;
    const pair = source === sink ? linesText(file, sink, sink) : `${linesText(file, source, source)}\n${linesText(file, sink, sink)}`;
    if (rule.unless.some((unless) => test(unless, pair))) continue;
    reported.add(at);
    const lowered = lowerFor(rule, file, at, context);
    // What the two halves are called in the note (`params.verbs`: `[fetches, runs]`); a secret read and sent by default.
    const [first, second] = verbs;
    const note = source === sink ? `${first} and ${second} on this line` : `${first} on line ${source}, ${second} on line ${sink}`;
    found.push(finding(rule, file.path, at, 1, excerptAt(file, at, 1), lowered?.to ?? rule.severity, lowered ? `${note}; ${lowered.note}` : note));
  }
  return found;
}

/**
 * Encoded text (decode.ts) that decodes to something a reviewer must see: `patterns` tried on the decoded text. Only
 * decoded layers are read; the severity's `adjust` is tried on the encoded run's own line (a decoder that runs it).
 */
export function detectDecoded(rule: Rule, file: ScannedFile, context: SkillContext): Finding[] {
  if (!('origin' in file)) return [];
  const origin = (file as ScannedFile & { origin: { file: ScannedFile; line: number; encoding: string } }).origin;
  if (!rule.patterns.some((pattern) => test(pattern, file.normal))) return [];
  // The decoder that runs it may sit on the lines before or after the encoded run.
  const around = (window: number): string =>
    linesText(origin.file, Math.max(1, origin.line - window), Math.min(origin.file.lineStarts.length, origin.line + window));
  const raised = rule.adjust.find((lowering) => lowering.when.some((when) => test(when, around(lowering.window))));
  const severity = raised?.to ?? rule.severity;
  // A guide that quotes an encoded payload as an example (the discussion rule) is lowered like any other quote.
  const lowered = lowerFor({ ...rule, severity, adjust: [] }, origin.file, origin.line, context);
  const note = [raised?.note, lowered?.note].filter((part) => part !== undefined).join('; ');
  return [finding(rule, file.path, 1, 1, '', lowered?.to ?? severity, note === '' ? undefined : note)];
}
