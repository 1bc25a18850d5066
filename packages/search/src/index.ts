// @skillport/search: ranked search over skills (analysis, postings, query expansion, scoring, the index).
export { SkillSearchIndex, BODY_CHARS, REFERENCE_CHARS } from './index/skill-index.js';
export { referenceFiles, MAX_REFERENCE_BYTES } from './index/references.js';
export { SearchView } from './index/search-view.js';
export type { SearchDocument, SearchHit, SearchMatch, SearchOptions } from './types.js';
export { searchTerms } from './analysis/analyzer.js';
export { lightStem } from './analysis/stem.js';
export { stopwords, isStopword, parseWordList } from './analysis/stopwords.js';
export { WordNet } from './expansion/wordnet.js';
export type { RelatedWord } from './expansion/wordnet.js';
export { WordMap, MAX_KEY_WORDS, SITUATION_WORDS_FILE } from './expansion/word-map.js';
export type { WordMapEntry } from './expansion/word-map.js';
export { WordVectors, WORD_VECTOR_RANKS, vectorStopwordSet, wordVectorPaths, parseNumber } from './expansion/word-vectors.js';
export { dataFolder, readDataFile } from './data.js';
export { encodeIndex, decodeIndex, saveIndex, loadIndex, analysisFingerprint } from './index/persist.js';
export type { PersistedIndex } from './index/persist.js';
export type { IndexState } from './index/state.js';
export { MIN_CONFIDENCE, confidenceOf } from './scoring/confidence.js';
export { QueryDomain, QUERY_DOMAIN_FILE } from './scoring/query-domain.js';
