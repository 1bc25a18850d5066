import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { checkFrontmatter, compareStrings, joinSkillUri, parseSkillMarkdown } from '@skillport/core';
import type { SkillLimits } from '@skillport/core';
import { assemble } from './folder-scan.js';
import type { FolderRoot, ScannedFolder } from './folder-scan.js';

/** Folders inspected at most for a page of `pageSize` before the pass gives up (the full scan answers then). */
export function firstPageBudget(pageSize: number): number {
  return Math.max(4 * (pageSize + 1), 64);
}

/** What the name reading needs to give the inspection's verdict (scan-worker.ts orders a cold scan's folders by it). */
export interface NameOptions {
  limits: SkillLimits;
  allowFields?: readonly string[] | undefined;
}

/**
 * Whether the inspected folders' assembly holds more than `pageSize` skills whose URIs no folder left out could
 * change: below `bound` (the least lower bound of the folders not inspected), and not a renamed folder whose spot
 * (`<parent>/<name>`) lies at or past it (a folder not inspected may want that spot and move this one, ADR 0276).
 */
export function settled(inspected: ScannedFolder[], bound: string | undefined, pageSize: number, all = false): boolean {
  const { skills, problems } = assemble(inspected);
  // A URI conflict stops a cold start: the full scan decides it (and the server's start fails as before).
  if (problems.some((problem) => problem.code === 'uri-conflict')) return false;
  if (all) return true;
  let limit = bound!;
  for (let changed = true; changed; ) {
    changed = false;
    for (const folder of inspected) {
      const skill = folder.inspection.skill;
      const folderName = folder.segments.at(-1);
      if (skill === undefined || folderName === undefined || folderName.normalize('NFKC') === skill.name) continue;
      const spot = joinSkillUri([...folder.root.prefix, ...folder.segments.slice(0, -1), skill.name]);
      if (compareStrings(spot, limit) < 0) continue;
      // Its place is not certain: nothing from its lowest possible URI on counts.
      const own = joinSkillUri([...folder.root.prefix, ...folder.segments]);
      const lowest = compareStrings(own, spot) < 0 ? own : spot;
      if (compareStrings(lowest, limit) < 0) {
        limit = lowest;
        changed = true;
      }
    }
  }
  let certain = 0;
  for (const skill of skills) if (compareStrings(skill.uri, limit) < 0) certain++;
  return certain > pageSize;
}

/** A bound of a folder without reading it: the root's prefix and the folders above it (its name is unknown yet). */
export function parentBound(root: FolderRoot, segments: string[]): string {
  return joinSkillUri([...root.prefix, ...segments.slice(0, -1)]);
}

/**
 * The lowest URI a folder can be served at: its skill's URI path is the root's prefix and the folders above it,
 * then its name (`<parent>/<name>`) or, when that spot is wanted by another, its folder and name
 * (`<parent>/<folder>/<name>`, folder-scan.ts `assemble`). Both begin with one of two strings, and a string sorts
 * before everything that begins with it. Without a readable name, the parent path alone bounds it.
 */
export function lowerBound(root: FolderRoot, dir: string, segments: string[], options: NameOptions): string {
  const parent = [...root.prefix, ...segments.slice(0, -1)];
  const name = frontmatterName(dir, segments.at(-1), options);
  if (name === undefined) return joinSkillUri(parent);
  const spot = joinSkillUri([...parent, name]);
  if (segments.length === 0) return spot;
  const own = joinSkillUri([...root.prefix, ...segments]);
  return compareStrings(own, spot) < 0 ? own : spot;
}

/** Bytes of SKILL.md read first: nearly every frontmatter ends within them (then the whole bound is read). */
const HEAD_BYTES = 4096;
let headBuffer = Buffer.allocUnsafe(HEAD_BYTES);

/** The skill name as the inspection will read it, from the head of SKILL.md (or skill.md); undefined when unsure. */
export function frontmatterName(dir: string, folderName: string | undefined, options: NameOptions): string | undefined {
  const max = options.limits.maxFrontmatterBytes + 16;
  for (const file of ['SKILL.md', 'skill.md']) {
    let head = readHead(join(dir, file), Math.min(HEAD_BYTES, max));
    if (head === undefined) continue;
    const quick = plainName(head);
    if (quick !== undefined) return quick;
    if (head.length >= HEAD_BYTES && max > HEAD_BYTES) head = readHead(join(dir, file), max);
    if (head === undefined) return undefined;
    try {
      const { frontmatter } = parseSkillMarkdown(head, options.limits.maxFrontmatterBytes);
      return checkFrontmatter(frontmatter, folderName, options.allowFields?.length ? { allowFields: options.allowFields } : {}).name;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** A top-level `name:` line, and its value in the spec's name characters (plain, or quoted without escapes). */
const NAME_LINE = /^name[ \t]*:/;
const PLAIN_NAME = /^name:[ \t]+(?:([a-z0-9][a-z0-9-]*)|"([a-z0-9][a-z0-9-]*)"|'([a-z0-9][a-z0-9-]*)')[ \t]*$/;
/** A line starting with one of these may make the frontmatter more than a plain block mapping: the parser decides. */
const UNPLAIN_START = /^[{[?&*!%"'|>@`<-]/;

/**
 * The name of a frontmatter that is a plain block mapping holding `name: <plain value>` on one line, without YAML
 * parsing (most of a head pass's cost otherwise); undefined when anything makes that less than certain (the
 * parser decides then). Only the value of a skill that will be served matters: a frontmatter the parser refuses is
 * not one.
 */
export function plainName(text: string): string | undefined {
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const lines = source.split('\n');
  if (lines[0]?.replace(/\r$/, '').trimEnd() !== '---') return undefined;
  let name: string | undefined;
  let closed = false;
  for (let index = 1; index < lines.length; index++) {
    const line = lines[index]!.replace(/\r$/, '');
    if (line.trimEnd() === '---' || line === '...') {
      closed = true;
      break;
    }
    if (UNPLAIN_START.test(line) || line.startsWith('\t')) return undefined;
    if (!NAME_LINE.test(line)) continue;
    const match = PLAIN_NAME.exec(line);
    if (name !== undefined || match === null) return undefined;
    // An indented line right after it may continue the value (a plain scalar over lines): the parser decides.
    const following = lines[index + 1]?.replace(/\r$/, '');
    if (following !== undefined && /^[ \t]+\S/.test(following) && !/^[ \t]+#/.test(following)) return undefined;
    name = match[1] ?? match[2] ?? match[3]!;
  }
  return closed ? name : undefined;
}

function readHead(path: string, bytes: number): string | undefined {
  let fd: number;
  try {
    // Never waits on a FIFO or a device named SKILL.md: opened without blocking, and only a regular file is read.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    if (!fstatSync(fd).isFile()) return undefined;
    if (headBuffer.byteLength < bytes) headBuffer = Buffer.allocUnsafe(bytes);
    const read = readSync(fd, headBuffer, 0, bytes, 0);
    // A cut multi-byte character at the end is in the body (or past the bound), which is not used here.
    return headBuffer.toString('utf8', 0, read);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** A folder of the sequence with a lower bound of its URIs; `read`: from its SKILL.md's name, else its parents'. */
export interface BoundEntry {
  bound: string;
  position: number;
  read: boolean;
}

/** A binary min-heap of folders by bound (ties: the walk's order). */
export class BoundQueue {
  #heap: BoundEntry[] = [];

  get size(): number {
    return this.#heap.length;
  }

  peek(): BoundEntry | undefined {
    return this.#heap[0];
  }

  push(entry: BoundEntry): void {
    const heap = this.#heap;
    heap.push(entry);
    for (let at = heap.length - 1; at > 0; ) {
      const up = (at - 1) >> 1;
      if (!below(heap[at]!, heap[up]!)) break;
      [heap[at], heap[up]] = [heap[up]!, heap[at]!];
      at = up;
    }
  }

  pop(): BoundEntry | undefined {
    const heap = this.#heap;
    const top = heap[0];
    const last = heap.pop();
    if (top === undefined || last === undefined || heap.length === 0) return top;
    heap[0] = last;
    for (let at = 0; ; ) {
      const left = 2 * at + 1;
      const right = left + 1;
      let least = at;
      if (left < heap.length && below(heap[left]!, heap[least]!)) least = left;
      if (right < heap.length && below(heap[right]!, heap[least]!)) least = right;
      if (least === at) break;
      [heap[at], heap[least]] = [heap[least]!, heap[at]!];
      at = least;
    }
    return top;
  }
}

function below(a: BoundEntry, b: BoundEntry): boolean {
  const order = compareStrings(a.bound, b.bound);
  return order < 0 || (order === 0 && a.position < b.position);
}
