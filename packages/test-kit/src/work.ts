/**
 * Work counted, not timed: how many `Set#has` and `Map#has` lookups `run` makes (every caller's, while it runs).
 * Tests that an algorithm is linear compare these counts at two sizes, which no machine's load can change.
 */
export async function countLookups<T>(run: () => T | Promise<T>): Promise<{ result: T; lookups: number }> {
  const setHas = Set.prototype.has;
  const mapHas = Map.prototype.has;
  let lookups = 0;
  Set.prototype.has = function (this: Set<unknown>, value: unknown) {
    lookups++;
    return setHas.call(this, value);
  };
  Map.prototype.has = function (this: Map<unknown, unknown>, key: unknown) {
    lookups++;
    return mapHas.call(this, key);
  };
  try {
    const result = await run();
    return { result, lookups };
  } finally {
    Set.prototype.has = setHas;
    Map.prototype.has = mapHas;
  }
}

/**
 * How many times the event loop came round (setImmediate callbacks run) while `run` was working: 0 when it held
 * the loop from start to end. Counted, not timed, so a test that long work takes turns with other requests holds
 * on any machine.
 */
export async function turnsDuring<T>(run: () => Promise<T>): Promise<{ result: T; turns: number }> {
  let turns = 0;
  let done = false;
  const tick = () => {
    if (done) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  try {
    const result = await run();
    return { result, turns };
  } finally {
    done = true;
  }
}
