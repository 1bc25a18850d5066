/**
 * The server package's one base error: every error it throws on purpose carries a stable `code` that callers
 * select on (never the message text, which is for people and may change).
 */
export class ServerError extends Error {
  override name = 'ServerError';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
