/**
 * A cheap upper bound on how deeply a YAML text nests, checked before the text reaches the parser.
 *
 * Why: the `yaml` composer recurses once per level. Near the end of the stack V8 may have to compile a regular
 * expression (after a GC flushed its code), and a regexp compile that runs out of stack there aborts the whole
 * process ("RegExpCompiler Allocation failed"), workers included, instead of throwing a RangeError we could catch.
 * So a hostile file must never get the parser that deep: the bound refuses it first.
 *
 * The bound counts, per line, the block levels its indentation opens, the compact indicators at its start
 * (`- - x`, `? `, `: `) and the flow brackets open at any point of it (`[`, `{`, carried across lines). Quotes and
 * comments are not parsed, so brackets inside strings count too: the bound may be higher than the true depth, never
 * lower, and the limit leaves room for that.
 */

/** Past this bound YAML is refused unparsed; a frontmatter mapping deeper than 64 is refused after parsing anyway. */
export const MAX_YAML_NESTING = 128;

export interface NestingPosition {
  /** 1-based line in the text. */
  line: number;
  /** 1-based column in that line. */
  column: number;
}

/** Where the nesting bound first passes `limit`, or undefined when it never does. */
export function yamlNestingOverflow(text: string, limit = MAX_YAML_NESTING): NestingPosition | undefined {
  const indents: number[] = [];
  let flow = 0;
  let line = 0;
  let start = 0;
  while (start <= text.length) {
    line++;
    const newline = text.indexOf('\n', start);
    const end = newline < 0 ? text.length : newline;
    let at = start;
    while (at < end && text.charCodeAt(at) === 0x20) at++;
    const blank = at >= end || text[at] === '#' || (text[at] === '\r' && at + 1 === end);
    if (!blank) {
      if (flow === 0) {
        const indent = at - start;
        while (indents.length > 0 && (indents.at(-1) as number) >= indent) indents.pop();
        indents.push(indent);
        // Compact block indicators (`- - x`, `? `, `: `): each opens a level whose content column later lines
        // indent against, so the column goes on the stack like an indentation.
        while (at < end && '-?:'.includes(text[at] as string) && (at + 1 === end || text[at + 1] === ' ')) {
          at++;
          while (at < end && text.charCodeAt(at) === 0x20) at++;
          indents.push(at - start);
          if (indents.length > limit) return { line, column: at - start + 1 };
        }
      }
      for (let i = at; i < end; i++) {
        const char = text[i];
        if (char === '[' || char === '{') {
          flow++;
          if (indents.length + flow > limit) return { line, column: i - start + 1 };
        } else if ((char === ']' || char === '}') && flow > 0) flow--;
      }
      if (indents.length + flow > limit) return { line, column: 1 };
    }
    if (newline < 0) break;
    start = newline + 1;
  }
  return undefined;
}
