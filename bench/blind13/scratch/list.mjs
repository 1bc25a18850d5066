import fs from 'node:fs';
import { loadSkills } from './words.mjs';
const sk = loadSkills();
const readme = fs.readFileSync('/work/main/bench/blind12/README.md', 'utf8') + fs.readFileSync('/work/main/bench/blind11/README.md', 'utf8');
const lines = [];
let flagged = 0;
for (const s of sk) {
  const re = new RegExp(`(^|[^a-z0-9-])${s.name.replace(/[^a-z0-9]/gi, (c) => '\\' + c)}($|[^a-z0-9-])`, 'i');
  const f = s.name && re.test(readme);
  if (f) flagged++;
  s.flag = f;
  lines.push(`${f ? '*' : ' '} ${s.folder} | ${s.name} | ${s.description.slice(0, 230)}`);
}
fs.writeFileSync('skills.json', JSON.stringify(sk.map(({ body, ...r }) => r), null, 1));
fs.writeFileSync('short.txt', lines.join('\n') + '\n');
console.log(sk.length, 'skills', flagged, 'flagged');
