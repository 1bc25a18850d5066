import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { foldCase, forEachWord, nameKey } from '../src/analysis/words.js';
import { NameIndex } from '../src/index/names.js';
import { random } from './random.js';

const WORDS = ['pdf', 'slack', 'gif', 'creator', 'web', 'app', 'testing', 'deploy', 'helper', 'data', 'Report', 'über'];
const QUERIES = ['pdf', 'slack', 'slack gif', 'slack-gif-creator', 'slackgifcreator', 'web app', 'Web_App testing', 'data', 'über', 'deploy helper', 'zzz', ''];

interface Entry {
  slot: number;
  name: string;
  key: string;
  order: number;
}

/** What the index must visit: every live name's slot, exact ones in the order added, then prefixes by key and order added. */
function expected(live: Entry[], text: string): Array<[number, boolean]> {
  const key = nameKey(text);
  if (key === '') return [];
  const compact = key.replace(/ /g, '');
  const byOrder = [...live].sort((a, b) => a.order - b.order);
  const exact = byOrder.filter((entry) => entry.key.replace(/ /g, '') === compact).map((entry): [number, boolean] => [entry.slot, true]);
  const prefixed = byOrder
    .filter((entry) => entry.key.startsWith(`${key} `))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.order - b.order))
    .map((entry): [number, boolean] => [entry.slot, false]);
  return [...exact, ...prefixed];
}

function visited(index: NameIndex, text: string): Array<[number, boolean]> {
  const out: Array<[number, boolean]> = [];
  index.forEachNamed(text, (slot, exact) => out.push([slot, exact]));
  return out;
}

describe('NameIndex', () => {
  test('visits what a scan of the live names finds, in the same order, through adds, removals, renumberings and prepares', () => {
    for (let seed = 1; seed <= 12; seed++) {
      const next = random(seed);
      const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)]!;
      const index = new NameIndex();
      let live: Entry[] = [];
      let slots = 0;
      let order = 0;
      // Some runs large enough that lookups sort the pending names in, others with few enough that they are scanned.
      const steps = seed % 3 === 0 ? 4000 : 600;
      for (let step = 0; step < steps; step++) {
        const roll = next();
        if (roll < 0.55 || live.length === 0) {
          const words = Array.from({ length: 1 + Math.floor(next() * 3) }, () => pick(WORDS));
          const name = words.join(pick(['-', ' ', '_', '']));
          index.add(name, slots);
          live.push({ slot: slots++, name, key: nameKey(name), order: order++ });
        } else if (roll < 0.8) {
          const at = Math.floor(next() * live.length);
          index.remove(live[at]!.name, live[at]!.slot);
          live.splice(at, 1);
        } else if (roll < 0.84) {
          // A merge: live slots renumbered in order, removed ones gone.
          const renumber = new Int32Array(slots).fill(-1);
          const bySlot = [...live].sort((a, b) => a.slot - b.slot);
          bySlot.forEach((entry, at) => (renumber[entry.slot] = at));
          index.renumber(renumber);
          live = live.map((entry) => ({ ...entry, slot: renumber[entry.slot]! }));
          slots = bySlot.length;
        } else if (roll < 0.86) {
          index.prepare();
        } else {
          const text = pick(QUERIES);
          assert.deepEqual(visited(index, text), expected(live, text), `seed ${seed}, step ${step}, query ${JSON.stringify(text)}`);
        }
      }
      for (const text of QUERIES) assert.deepEqual(visited(index, text), expected(live, text), `seed ${seed}, at the end, ${JSON.stringify(text)}`);
    }
  });

  test('a name removed before it was sorted in, and one removed after, are no longer visited', () => {
    const index = new NameIndex();
    index.add('slack-gif-creator', 0);
    index.add('slack gif', 1);
    index.prepare();
    index.add('slack-gif-creator', 2);
    index.remove('slack-gif-creator', 0);
    assert.deepEqual(visited(index, 'slack gif'), [
      [1, true],
      [2, false],
    ]);
    index.remove('slack-gif-creator', 2);
    assert.deepEqual(visited(index, 'slack gif'), [[1, true]]);
    assert.deepEqual(visited(index, 'slack gif creator'), []);
  });

  test('an ASCII name has the key the general path gives it (words folded one by one, joined by spaces)', () => {
    const next = random(99);
    const characters = 'aZ9_- .x/Q0\t~@K';
    for (let round = 0; round < 2000; round++) {
      const text = Array.from({ length: Math.floor(next() * 14) }, () => characters[Math.floor(next() * characters.length)]!).join('');
      const words: string[] = [];
      forEachWord(text, (word) => words.push(foldCase(word)));
      assert.equal(nameKey(text), words.join(' '), JSON.stringify(text));
    }
  });
});
