import { loadSkills } from './words.mjs';
const sk = loadSkills();
for (const n of process.argv.slice(2)) for (const x of sk.filter((x) => x.name === n || x.folder === n)) console.log(`${n} [${x.folder.split('/')[0]}]: ${x.description.slice(0, 260)}`);
