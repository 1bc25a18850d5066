import type { ServerResponse } from 'node:http';

/**
 * A large answer written as it is made, at the pace the client reads it. `JSON.stringify` of a `resources/read` of
 * an 11 MB file builds the text, its JSON and the bytes to send, ~40 MiB per request, and `res.end()` queues all of
 * it for a client that may never read: a hundred such clients held 2-3 GiB. Here the answer is the JSON around a
 * placeholder, with the file's content encoded in windows of WINDOW bytes between, and the next window is made only
 * once the socket has taken the last one (`write()` returned true, or `drain`). What a request holds is one window
 * and the file's verified bytes, which every reader of that file shares (catalog/content.ts).
 */
const WINDOW = 64 * 1024;
/** Files at least this large are streamed; smaller answers are written whole (one write is cheaper). */
export const STREAM_MIN_BYTES = 256 * 1024;
const PLACEHOLDER = '\u0000skillport-content\u0000';

/**
 * Writes `answer` (a JSON-RPC answer whose one content item holds PLACEHOLDER_TEXT as its `text` or `blob`) with
 * the content of `bytes` in its place: as JSON-escaped text, or base64. Resolves when the answer is written or the
 * client went away (then the rest is never made).
 */
export async function writeStreamed(res: ServerResponse, answer: unknown, bytes: Buffer, text: boolean): Promise<void> {
  const parts = streamedParts(answer, bytes, text);
  // No Content-Length: the escaped size is known only once made, so the answer is chunked (HTTP/1.1).
  res.writeHead(200, { 'content-type': 'application/json' });
  for (const part of parts) {
    if (res.destroyed) return;
    if (!res.write(part) && !(await drained(res))) return;
  }
  res.end();
}

/**
 * The bytes of `answer` (as `writeStreamed` takes it) made lazily: the next window exists only once the last one
 * was taken, so a caller that writes at the reader's pace holds one window (a batch's answers are sent so too).
 */
export function streamedParts(answer: unknown, bytes: Buffer, text: boolean): Generator<Buffer> {
  const json = JSON.stringify(answer);
  const marker = JSON.stringify(PLACEHOLDER);
  const at = json.indexOf(marker);
  if (at < 0) throw new Error('the answer holds no content placeholder');
  return (function* parts(): Generator<Buffer> {
    yield Buffer.from(`${json.slice(0, at)}"`);
    yield* text ? textWindows(bytes) : base64Windows(bytes);
    yield Buffer.from(`"${json.slice(at + marker.length)}`);
  })();
}

/** The placeholder a caller puts where the streamed content goes. */
export const PLACEHOLDER_TEXT = PLACEHOLDER;

/** True once the response can take more, false when it closed first. */
function drained(res: ServerResponse): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (ok: boolean) => () => {
      res.off('drain', onDrain);
      res.off('close', onClose);
      resolve(ok);
    };
    const onDrain = done(true);
    const onClose = done(false);
    res.once('drain', onDrain);
    res.once('close', onClose);
  });
}

/**
 * Valid UTF-8 as JSON string content, a window at a time. Windows end on a character boundary (never inside a
 * multi-byte sequence, so never between the halves of a surrogate pair): each window's JSON.stringify is then
 * exactly its part of JSON.stringify of the whole text.
 */
function* textWindows(bytes: Buffer): Generator<Buffer> {
  for (let start = 0; start < bytes.length; ) {
    let end = Math.min(bytes.length, start + WINDOW);
    while (end < bytes.length && (bytes[end]! & 0xc0) === 0x80) end--; // back to the start of a character
    const escaped = JSON.stringify(bytes.toString('utf8', start, end));
    yield Buffer.from(escaped.slice(1, -1));
    start = end;
  }
}

/** Base64 in windows of a multiple of 3 bytes, so the pieces join into the base64 of the whole. */
function* base64Windows(bytes: Buffer): Generator<Buffer> {
  const step = WINDOW - (WINDOW % 3);
  for (let start = 0; start < bytes.length; start += step) yield Buffer.from(bytes.subarray(start, Math.min(bytes.length, start + step)).toString('base64'));
}
