#!/usr/bin/env node
const fs = require('fs');
const name = process.argv[3];
if (process.argv[2] !== 'new' || !name) { console.log('usage: rck new <Name>'); process.exit(1); }
fs.mkdirSync(`src/components/${name}`, { recursive: true });
fs.writeFileSync(`src/components/${name}/${name}.tsx`, `export function ${name}() { return null; }\n`);
