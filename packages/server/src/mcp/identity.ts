import type { CacheHint as SdkCacheHint } from '@modelcontextprotocol/server';

/** Who the server says it is (serverInfo), and the cache hint every listing and read carries (the SDK's, filled in). */
export interface ServerIdentity {
  name: string;
  version: string;
}

export type CacheHint = Required<SdkCacheHint>;
