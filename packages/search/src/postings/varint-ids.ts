/** Distinct term ids, ascending, as varint gaps (7 bits a byte, high bit: more follows): 1-2 bytes a term. */
export function encodeIds(ids: ArrayLike<number>): Uint8Array {
  const sorted = Int32Array.from(ids).sort();
  const bytes = new Uint8Array(sorted.length * 5);
  let length = 0;
  let previous = 0;
  for (const id of sorted) {
    let gap = id - previous;
    previous = id;
    while (gap >= 0x80) {
      bytes[length++] = (gap & 0x7f) | 0x80;
      gap >>>= 7;
    }
    bytes[length++] = gap;
  }
  return bytes.slice(0, length);
}

/** Calls `visit` with each id of `encodeIds` bytes, ascending; returns how many there were. */
export function forEachId(bytes: Uint8Array, visit: (id: number) => void): number {
  let id = 0;
  let count = 0;
  for (let at = 0; at < bytes.length; ) {
    let gap = 0;
    let shift = 0;
    let byte: number;
    do {
      byte = bytes[at++]!;
      gap |= (byte & 0x7f) << shift;
      shift += 7;
    } while (byte >= 0x80);
    id += gap;
    visit(id);
    count++;
  }
  return count;
}
