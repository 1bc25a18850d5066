import { ProtocolError, ProtocolErrorCode, ResourceNotFoundError } from '@modelcontextprotocol/server';
import type { SkillSource } from '@modelcontextprotocol/server/ext/skills';
import { SlowFileError, StaleFileError } from '../catalog/content.js';
import { InvalidCursorError, RefusedSkillError } from './skills-service.js';
import { clip } from '../http/limits.js';
import { hintFromMeta } from './availability.js';

/**
 * The error code of a read refused because the file changed on disk since it was listed (docs/api.md, "Error
 * codes"): retryable: list the skill again (new digests) and read again. In JSON-RPC's range for server errors.
 */
export const STALE_FILE_CODE = -32011;
/** A file read that passed the reader's time limit (catalog/content.ts SlowFileError): retryable later. */
export const SLOW_FILE_CODE = -32012;
import type { SkillsService } from './skills-service.js';

/** Adapts the skills service to the SDK's `SkillSource`, turning our failures into the protocol's errors. */
export function createSkillSource(service: SkillsService): SkillSource {
  return {
    // A host says what it has in the request's `_meta` (dev.skillport/available): entries then carry availability for it.
    async list({ cursor }, ctx) {
      return guard(() => service.listSkills(cursor, hintFromMeta(ctx.mcpReq._meta)));
    },
    async get(uri, ctx) {
      const skill = service.getSkill(uri, hintFromMeta(ctx.mcpReq._meta));
      const refused = skill === undefined ? service.refusal(uri) : undefined;
      if (refused !== undefined) throw new ProtocolError(ProtocolErrorCode.InvalidParams, refused);
      // Another spelling of a served skill's URI (`%53KILL.md`, a `#fragment`): the SDK would take the entry for a
      // source fault (-32603, "the skill source returned …"); it is the client's URI, so say which one to ask for.
      if (skill !== undefined && href(uri) !== skill.uri) {
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `No skill is served at ${clip(uri)}; this skill's URI is ${skill.uri}`);
      }
      return skill;
    },
    async read(uri) {
      try {
        const content = await service.readFile(uri);
        if (content === undefined && service.isDirectory(uri)) {
          throw new ProtocolError(ProtocolErrorCode.InvalidParams, `${clip(uri)} is a directory; read it with resources/directory/read`);
        }
        if (content === undefined) {
          service.recordRead(uri, 'not_found');
          throw new ResourceNotFoundError(clip(uri));
        }
        service.recordRead(uri, 'ok');
        return content;
      } catch (error) {
        if (error instanceof RefusedSkillError) throw new ProtocolError(ProtocolErrorCode.InvalidParams, error.message);
        if (error instanceof StaleFileError) {
          service.recordRead(uri, 'stale');
          throw new ProtocolError(STALE_FILE_CODE, `${clip(uri)} changed on disk since it was listed; list the skill again and retry`, {
            uri: clip(uri),
            retryable: true,
          });
        }
        if (error instanceof SlowFileError) {
          service.recordRead(uri, 'slow');
          throw new ProtocolError(SLOW_FILE_CODE, error.message, { uri: clip(uri), retryable: true });
        }
        throw error;
      }
    },
    async readDirectory(uri, { cursor }) {
      return guard(() => service.readDirectory(uri, cursor));
    },
    async listResources() {
      return service.listResources();
    },
  };
}

/** The URI as WHATWG URL serialises it, as the SDK compares URIs; undefined when it does not parse. */
function href(uri: string): string | undefined {
  try {
    return new URL(uri).href;
  } catch {
    return undefined;
  }
}

function guard<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof InvalidCursorError) throw new ProtocolError(ProtocolErrorCode.InvalidParams, error.message);
    throw error;
  }
}
