import { useColor } from './output.js';

/** What a cold scan reports as it goes (the server's ScanProgress). */
export interface ScanCounts {
  found: number;
  scanned: number;
  files: number;
}

export interface ProgressLine {
  update(counts: ScanCounts): void;
  /** Takes the line away (before other output, and when the scan is over). */
  clear(): void;
}

/**
 * The cold-scan progress line on a terminal (issue 13): skills found and inspected, files hashed, the rate and
 * the time left, redrawn in place at most ten times a second. Nothing at all when stderr is not a terminal or with
 * --quiet (logs and pipes get the usual lines only); with NO_COLOR the line is redrawn with `\r` and spaces, no
 * escape sequences.
 */
export function progressLine(stream: NodeJS.WriteStream, quiet: boolean, now: () => number = () => performance.now()): ProgressLine | undefined {
  if (quiet || stream.isTTY !== true) return undefined;
  const plain = !useColor(stream);
  const started = now();
  let last = -Infinity;
  let shown = 0;
  const draw = (text: string) => {
    const width = Math.max(20, (stream.columns ?? 100) - 1);
    const line = text.length > width ? `${text.slice(0, width - 1)}…` : text;
    stream.write(plain ? `\r${line.padEnd(shown)}` : `\r${line}\u001b[K`);
    shown = line.length;
  };
  return {
    update(counts) {
      const at = now();
      if (at - last < 100 && counts.scanned < counts.found) return;
      last = at;
      draw(formatProgress(counts, (at - started) / 1000));
    },
    clear() {
      if (shown === 0) return;
      stream.write(plain ? `\r${' '.repeat(shown)}\r` : '\r\u001b[K');
      shown = 0;
    },
  };
}

/** `scanning: 4,200 of 10,000 skills, 31,502 files, 850 skills/s, about 7 s left`. */
export function formatProgress(counts: ScanCounts, seconds: number): string {
  const n = (value: number) => Math.round(value).toLocaleString('en-US');
  const rate = seconds > 0 ? counts.scanned / seconds : 0;
  const left = rate > 0 && counts.found > counts.scanned ? (counts.found - counts.scanned) / rate : undefined;
  const eta = left === undefined ? '' : left >= 90 ? `, about ${n(left / 60)} min left` : `, about ${n(Math.max(1, left))} s left`;
  return `skillport: scanning: ${n(counts.scanned)} of ${n(counts.found)} skills, ${n(counts.files)} files${rate > 0 ? `, ${n(rate)} skills/s` : ''}${eta}`;
}
