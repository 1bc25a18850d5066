import { isScalar, parseDocument, visit } from 'yaml';
import type { Document } from 'yaml';

/**
 * YAML that this parser reads but simpler frontmatter readers (the MCP SDK's skills client among them) refuse: the
 * skill is still served, and the author is told which construct to write out plainly. One message per construct.
 */
export function portabilityNotes(yaml: string, doc: Document): string[] {
  const found = new Set<string>();
  visit(doc, {
    Alias() {
      found.add('aliases (*name)');
    },
    Node(_key, node) {
      if (node.anchor) found.add('anchors (&name)');
      if (node.tag) found.add(`tags (${node.tag.replace('tag:yaml.org,2002:', '!!')})`);
      if (
        isScalar(node) &&
        (node.type === 'QUOTE_DOUBLE' || node.type === 'QUOTE_SINGLE') &&
        node.range &&
        yaml.slice(node.range[0], node.range[1]).includes('\n')
      )
        found.add('a quoted value over several lines');
      if (isScalar(node) && (node.type === 'BLOCK_LITERAL' || node.type === 'BLOCK_FOLDED') && node.range) {
        // The header line (`|2-`, `>+1 # note`): a digit there is an indentation indicator.
        const end = yaml.indexOf('\n', node.range[0]);
        if (/[1-9]/.test(yaml.slice(node.range[0], end < 0 ? undefined : end).split('#')[0]!)) found.add('block indentation indicators (|2, >1)');
      }
    },
    Pair(_key, pair) {
      if (!isScalar(pair.key)) found.add('complex keys (a list or mapping as a key)');
    },
  });
  // A line starting `? ` may be text inside a block value: only then is the document read again with its tokens kept.
  if (/^[ \t]*\?(?:[ \t]|$)/m.test(yaml) && hasExplicitKey(yaml)) found.add('explicit keys (? key)');
  return [...found];
}

function hasExplicitKey(yaml: string): boolean {
  let explicit = false;
  visit(parseDocument(yaml, { version: '1.2', schema: 'core', keepSourceTokens: true }), {
    Pair(_key, pair) {
      const start = (pair as { srcToken?: { start?: Array<{ type: string }> } }).srcToken?.start;
      if (start?.some((token) => token.type === 'explicit-key-ind')) explicit = true;
    },
  });
  return explicit;
}
