export * from './model.js';
export * from './rules.js';
export * from './scan.js';
export { visible, mask, type SkillFile } from './files.js';
export * from './sarif.js';
export * from './similarity.js';
export * from './folder.js';
