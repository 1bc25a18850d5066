/**
 * Whether the server is answering anyone: requests in flight and the time the last one started or ended. Background
 * work that can wait (the first search index, search/catalog-search.ts) asks `idleFor()` and takes its slices only when the
 * server has been quiet for a while, so that a server nobody searches never makes its readers wait for it (ADR 0151).
 * Health probes (/healthz, /readyz) are not activity: a load balancer polling them must not hold the work back.
 */
export class Activity {
  #inFlight = 0;
  #last = performance.now();

  /** A request started; the function returned ends it (call once). */
  begin(): () => void {
    this.#inFlight++;
    this.#last = performance.now();
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.#inFlight--;
      this.#last = performance.now();
    };
  }

  /** Ends a request begun with `begin` whose own end will not be called (an event stream, once it started). */
  end(): void {
    this.#inFlight--;
    this.#last = performance.now();
  }

  /** A message without a known end (stdio): counts as activity now. */
  touch(): void {
    this.#last = performance.now();
  }

  /** Milliseconds since the server was last busy: 0 while a request is in flight. */
  idleFor(): number {
    return this.#inFlight > 0 ? 0 : performance.now() - this.#last;
  }
}
