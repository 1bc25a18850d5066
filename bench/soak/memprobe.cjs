// A diagnostic probe for bench/soak.mjs, preloaded into the servers it starts (`node --require`); never part of the
// product. It does nothing until the soak sends SIGUSR2; then it appends one JSON line to $SKILLPORT_MEMPROBE:
// process.memoryUsage() and V8's heap figures as they are, then the same after a full garbage collection, so the
// report can tell retained objects (heapUsed after a collection) from heap pages V8 keeps (heapTotal) and from
// memory outside V8 (RSS minus V8's resident heap: malloc arenas, buffers, code, stacks). With
// $SKILLPORT_MEMPROBE_SNAPSHOTS set (a folder), each probe also writes a heap snapshot there after the collection.
'use strict';
const { appendFileSync, readFileSync, readdirSync } = require('node:fs');
const { join } = require('node:path');
const v8 = require('node:v8');
const vm = require('node:vm');

const out = process.env.SKILLPORT_MEMPROBE;
const snapshots = process.env.SKILLPORT_MEMPROBE_SNAPSHOTS;
if (out) {
  let gc;
  const collect = () => {
    if (gc === undefined) {
      v8.setFlagsFromString('--expose-gc');
      gc = vm.runInNewContext('gc');
    }
    gc();
  };
  const mib = (bytes) => Math.round((bytes / 1048576) * 10) / 10;
  const status = () => {
    const text = readFileSync('/proc/self/status', 'utf8');
    const kb = (key) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(text)?.[1] ?? 0) / 1024;
    return { rssAnon: Math.round(kb('RssAnon') * 10) / 10, rssFile: Math.round(kb('RssFile') * 10) / 10 };
  };
  const figures = () => {
    const usage = process.memoryUsage();
    const heap = v8.getHeapStatistics();
    return {
      rss: mib(usage.rss),
      ...status(),
      heapTotal: mib(usage.heapTotal),
      heapUsed: mib(usage.heapUsed),
      heapPhysical: mib(heap.total_physical_size),
      external: mib(usage.external),
      arrayBuffers: mib(usage.arrayBuffers),
      v8Malloced: mib(heap.malloced_memory),
      // What is resident outside V8's heap: the malloc arenas (external buffers among them), code, stacks.
      outsideHeap: mib(usage.rss - heap.total_physical_size),
      // Handles the event loop holds (sockets, timers, ...) by kind, and open file descriptors: a socket or timer
      // kept per request shows here, as a count.
      resources: process.getActiveResourcesInfo().reduce((counts, kind) => ({ ...counts, [kind]: (counts[kind] ?? 0) + 1 }), {}),
      fds: readdirSync('/proc/self/fd').length,
      // Each V8 space: committed and used MiB (the young generation is new_space).
      spaces: Object.fromEntries(
        v8.getHeapSpaceStatistics().map((space) => [space.space_name, [mib(space.space_size), mib(space.space_used_size)]]),
      ),
    };
  };
  // Full collections since the last probe (the server's idle collector forces them: ADR 0165), from V8's own
  // reports: how many, how many forced, and how long ago the last one was, so a figure taken before the idle
  // collector has given memory back shows as such.
  const { PerformanceObserver, constants } = require('node:perf_hooks');
  let majors = { count: 0, forced: 0, lastAt: undefined };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (entry.detail?.kind !== constants.NODE_PERFORMANCE_GC_MAJOR) continue;
      majors.count++;
      if (entry.detail.flags & constants.NODE_PERFORMANCE_GC_FLAGS_FORCED) majors.forced++;
      majors.lastAt = Date.now();
    }
  }).observe({ entryTypes: ['gc'] });
  let count = 0;
  process.on('SIGUSR2', () => {
    const sinceLastProbe = { ...majors, lastSecondsAgo: majors.lastAt === undefined ? null : Math.round((Date.now() - majors.lastAt) / 100) / 10 };
    majors = { count: 0, forced: 0, lastAt: undefined };
    const asIs = { ...figures(), majorCollections: sinceLastProbe };
    collect();
    // V8 gives freed pages back on a background thread: the figures a moment after the collection.
    setTimeout(() => {
      const afterGc = figures();
      let snapshot;
      if (snapshots) snapshot = v8.writeHeapSnapshot(join(snapshots, `probe-${process.pid}-${++count}.heapsnapshot`));
      appendFileSync(out, `${JSON.stringify({ pid: process.pid, at: Date.now(), asIs, afterGc, snapshot })}\n`);
    }, 1000);
  });
}
