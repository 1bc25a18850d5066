import { readDataFile } from '../data.js';

/** The parsed ./stopwords.txt, read on first use (not at import: loading the server must not touch the disk for it). */
let words: ReadonlySet<string> | undefined;

/** Parses a word list: words separated by white space, `#` to the end of a line a comment. */
export function parseWordList(text: string): Set<string> {
  const found = new Set<string>();
  for (const line of text.split('\n')) for (const word of line.replace(/#.*/, '').trim().split(/\s+/)) if (word !== '') found.add(word);
  return found;
}

/** The words search ignores (./stopwords.txt). */
export function stopwords(): ReadonlySet<string> {
  words ??= parseWordList(readDataFile('stopwords.txt'));
  return words;
}

export function isStopword(word: string): boolean {
  return stopwords().has(word);
}
