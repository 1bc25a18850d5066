#!/usr/bin/env node
import { main } from './main.js';

main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`skillport: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
