/**
 * validateChromeTrace: a structural check of a Chrome Trace Event Format file, for tests. It
 * checks what Perfetto needs to draw a file as meant (issue 14's "Done when"):
 *
 * 1. known `ph` types (the Trace Event Format's phases);
 * 2. integer `pid` on every event and integer `tid` where present (every event of ours has one);
 * 3. every flow has both ends: per (id, cat, name) one `s` and one `f` no earlier than it, and
 *    each inside a slice of its thread (Perfetto binds an `s`, and an `f` with `bp: "e"`, to the
 *    enclosing slice; one outside any slice draws no arrow);
 * 4. B/E and X slices nest per thread: an `E` ends the thread's latest open `B`, nothing is left
 *    open, and no two slices of a thread partly overlap (intervals half open, in integer ns);
 * 5. async slices close: every `b` has a later `e` of the same (pid, cat, id, name), no `e`
 *    without a `b`, and every `n` falls inside an open one.
 *
 * Returns the problems found, one line each (empty: valid). Never throws.
 */

/** The phases of the Trace Event Format specification. */
const KNOWN_PHASES = new Set([
  'B', 'E', 'X', 'i', 'I', 'C', 'b', 'n', 'e', 'S', 'T', 'p', 'F', 's', 't', 'f',
  'P', 'N', 'O', 'D', 'M', 'V', 'v', 'R', 'c', '(', ')',
]);

interface Ev {
  readonly ph: string;
  readonly name: string;
  readonly cat: string;
  readonly pid: number;
  readonly tid: number;
  readonly ns: number;
  readonly durNs: number;
  readonly id: string;
  readonly bp: unknown;
  readonly index: number;
}

const ns = (us: number): number => Math.round(us * 1000);

/** The problems of `file` (a parsed trace file or bare event array); empty when valid. */
export function validateChromeTrace(file: unknown): string[] {
  const raw = Array.isArray(file) ? file : (file as { traceEvents?: unknown } | null)?.traceEvents;
  if (!Array.isArray(raw)) return ['traceEvents: not an array'];
  const problems: string[] = [];
  const events: Ev[] = [];
  raw.forEach((r: unknown, index) => {
    const o = (typeof r === 'object' && r !== null ? r : {}) as Record<string, unknown>;
    const where = `traceEvents[${index}]`;
    if (typeof o['ph'] !== 'string' || !KNOWN_PHASES.has(o['ph'])) {
      problems.push(`${where}: unknown ph ${JSON.stringify(o['ph'])}`);
      return;
    }
    if (!Number.isInteger(o['pid'])) problems.push(`${where}: pid ${JSON.stringify(o['pid'])} is not an integer`);
    if (o['tid'] !== undefined && !Number.isInteger(o['tid'])) problems.push(`${where}: tid ${JSON.stringify(o['tid'])} is not an integer`);
    const ph = o['ph'];
    if (ph !== 'M' && (typeof o['ts'] !== 'number' || !Number.isFinite(o['ts']))) problems.push(`${where}: ts is not a number`);
    if (ph === 'X' && (typeof o['dur'] !== 'number' || o['dur'] < 0)) problems.push(`${where}: X without a non-negative dur`);
    events.push({
      ph, name: String(o['name'] ?? ''), cat: String(o['cat'] ?? ''), pid: Number(o['pid']), tid: Number(o['tid']),
      ns: ns(Number(o['ts'] ?? 0)), durNs: ns(Number(o['dur'] ?? 0)), id: JSON.stringify(o['id'] ?? null), bp: o['bp'], index,
    });
  });
  const slices = sliceIntervals(events, problems);
  checkFlows(events, slices, problems);
  checkAsync(events, problems);
  return problems;
}

/** Per thread, its slices as [start, end) in ns; reports unmatched B/E and partial overlaps. */
function sliceIntervals(events: readonly Ev[], problems: string[]): Map<string, [number, number][]> {
  const byThread = new Map<string, [number, number][]>();
  const add = (key: string, iv: [number, number]): void => {
    const list = byThread.get(key);
    if (list === undefined) byThread.set(key, [iv]);
    else list.push(iv);
  };
  const open = new Map<string, Ev[]>();
  const ordered = [...events].sort((a, b) => a.ns - b.ns || a.index - b.index);
  for (const e of ordered) {
    const key = `${e.pid}/${e.tid}`;
    if (e.ph === 'X') add(key, [e.ns, e.ns + e.durNs]);
    else if (e.ph === 'B') {
      const stack = open.get(key) ?? [];
      stack.push(e);
      open.set(key, stack);
    } else if (e.ph === 'E') {
      const begin = open.get(key)?.pop();
      if (begin === undefined) problems.push(`traceEvents[${e.index}]: E on thread ${key} without an open B`);
      else add(key, [begin.ns, e.ns]);
    }
  }
  for (const [key, stack] of open) {
    for (const b of stack) problems.push(`traceEvents[${b.index}]: B "${b.name}" on thread ${key} never ends`);
  }
  for (const [key, list] of byThread) {
    list.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
    const stack: [number, number][] = [];
    for (const iv of list) {
      while (stack.length > 0 && (stack[stack.length - 1] as [number, number])[1] <= iv[0]) stack.pop();
      const top = stack[stack.length - 1];
      if (top !== undefined && iv[1] > top[1]) {
        problems.push(`thread ${key}: slice [${iv[0]}, ${iv[1]}) ns overlaps [${top[0]}, ${top[1]}) ns without nesting`);
      }
      stack.push(iv);
    }
  }
  return byThread;
}

function inSlice(slices: Map<string, [number, number][]>, e: Ev): boolean {
  return (slices.get(`${e.pid}/${e.tid}`) ?? []).some(([a, b]) => a <= e.ns && e.ns < b);
}

function checkFlows(events: readonly Ev[], slices: Map<string, [number, number][]>, problems: string[]): void {
  const flows = new Map<string, { s: Ev[]; f: Ev[] }>();
  for (const e of events) {
    if (e.ph !== 's' && e.ph !== 'f' && e.ph !== 't') continue;
    const key = `id ${e.id} cat ${JSON.stringify(e.cat)} name ${JSON.stringify(e.name)}`;
    let flow = flows.get(key);
    if (flow === undefined) flows.set(key, (flow = { s: [], f: [] }));
    if (e.ph === 's') flow.s.push(e);
    else if (e.ph === 'f') flow.f.push(e);
    if (!inSlice(slices, e)) problems.push(`traceEvents[${e.index}]: flow ${e.ph} (${key}) is inside no slice of its thread`);
    if (e.ph === 'f' && e.bp !== 'e') problems.push(`traceEvents[${e.index}]: flow f (${key}) without bp "e" binds to the next slice`);
  }
  for (const [key, { s, f }] of flows) {
    if (s.length !== 1 || f.length !== 1) {
      problems.push(`flow ${key}: ${s.length} start(s) and ${f.length} end(s), want one of each`);
      continue;
    }
    if ((f[0] as Ev).ns < (s[0] as Ev).ns) problems.push(`flow ${key}: ends before it starts`);
  }
}

function checkAsync(events: readonly Ev[], problems: string[]): void {
  const open = new Map<string, Ev>();
  const ordered = [...events].sort((a, b) => a.ns - b.ns || a.index - b.index);
  for (const e of ordered) {
    if (e.ph !== 'b' && e.ph !== 'e' && e.ph !== 'n') continue;
    const key = `pid ${e.pid} cat ${JSON.stringify(e.cat)} id ${e.id} name ${JSON.stringify(e.name)}`;
    if (e.ph === 'b') {
      if (open.has(key)) problems.push(`traceEvents[${e.index}]: async slice ${key} begins again while open`);
      open.set(key, e);
    } else if (!open.has(key)) {
      problems.push(`traceEvents[${e.index}]: async ${e.ph} (${key}) outside an open async slice`);
    } else if (e.ph === 'e') {
      open.delete(key);
    }
  }
  for (const [key, b] of open) problems.push(`traceEvents[${b.index}]: async slice ${key} never ends`);
}
