/**
 * Which checkpoints, attempts, files and sink transactions a logged fault touched (ORACLES.md 6),
 * read from the trace only. The faults: a lost or dropped RPC and an RPC timeout (`rpc-lost`
 * marks, `rpc.drop`, `rpc.timeout`), a partition (`net.partition` until its `net.heal`), a crash
 * (`host.crash`), a message fault that acted (a `fault` event of type `message`: `lose`, `delay`,
 * `hold`), and a failed or unknown-outcome store operation (`store.end` with outcome `failed` or
 * `unknown-outcome`). A failed asynchronous snapshot (`checkpoint.asyncFailed`) is no fault of its
 * own: it is the failed or unknown-outcome `put` of one of its files, which the task reports (it
 * deletes the files it did write, as Flink's AsyncCheckpointRunnable#cleanup and the state stream
 * do, and the abort that follows its decline discards the checkpoint's directory).
 *
 * - A checkpoint `n` is touched by a fault that happened while it was live (from its first to its
 *   last trace event naming `checkpointId: n`; store faults excepted, below), or by a message
 *   fault on an RPC about it (its trigger, an ack or decline, its confirmation or abort: a lost
 *   ack leaves the task's files of `n` behind, in Flink too, until the checkpoint is disposed).
 * - An attempt `<vertex>#<subtask>@<attempt>` is touched when its host (from `scheduler.deploy`)
 *   crashed or was partitioned after it was deployed, or a message fault acted on an RPC naming
 *   it (its ack, decline or state update, its trigger, confirmation, abort, submission or
 *   cancellation).
 * - A file `chk-n/<attempt>/<uid>` is touched when its checkpoint or its attempt is, or when a
 *   store fault may have left it (`storeFaultLeft`).
 * - A store fault touches no checkpoint and no attempt, only the path it was about, as Flink 1.20
 *   leaves nothing else behind: a file is left by a store fault only when the last store
 *   operation to end on it (its `put` or `delete`, or a `deleteDirectory` of a directory holding
 *   it) failed or had an unknown outcome and was a delete, or had an unknown outcome and was a
 *   put. A failed put stored nothing; an unknown-outcome put may have stored the file, which its
 *   writer then does not know of (FsCheckpointMetadataOutputStream and the task's state stream
 *   delete it on a best-effort basis, so this is the most it leaves). A failed delete leaves
 *   that path, and a failed `deleteDirectory` whatever under it no other delete removed:
 *   Flink's CheckpointsCleaner (parallel mode, the default) deletes every state file of a
 *   discarded checkpoint whether or not others failed, and then the directory
 *   (PendingCheckpoint: FsCheckpointStorageLocation#disposeOnFailure, recursive; CompletedCheckpoint:
 *   its metadata too, then disposeStorageLocation, not recursive) whatever the file deletes did.
 *   A later successful operation on the file (a delete that removed it, a put that wrote it) is
 *   what explains it instead.
 * - A sink transaction (`<sink>#<subtask>@<attempt>/e<epoch>` or `<sink>/<subtask>/<attempt>/<epoch>`)
 *   is touched when its host crashed or was partitioned after it began, or an RPC was lost,
 *   dropped or timed out after it began (a lost notification leaves it pre-committed), or a
 *   message fault acted, or the message it delayed or held arrived, after it began (a held
 *   message holds every later one on its link).
 */
import { snapshotIdOfPath } from '../../sim/run/faultWorldOptions.ts';
import type { TraceEvent } from '../../sim/Trace.ts';

/** The answers of {@link faultsTouching}. */
export interface TouchedByFaults {
  checkpoint(id: number): boolean;
  attempt(attemptId: string): boolean;
  file(path: string): boolean;
  /** Whether a store fault may have left `path` (the last operation to end on it, above). */
  storeFaultLeft(path: string): boolean;
  transaction(name: string): boolean;
}

const RPC_FAULTS = new Set(['rpc.drop', 'rpc.timeout']);

/** Collects the faults of `trace` and answers what they touched. */
export function faultsTouching(trace: readonly TraceEvent[]): TouchedByFaults {
  const live = new Map<number, { from: number; to: number }>();
  const faultTimes: number[] = [];
  const rpcFaultTimes: number[] = [];
  const hostFaults = new Map<string, number[]>();
  /** Per path, the last `put` or `delete` to end on it: its trace position and whether it may leave the path. */
  const lastOnPath = new Map<string, { seq: number; left: boolean }>();
  /** Every `deleteDirectory` that ended, in trace order. */
  const directoryDeletes: { prefix: string; seq: number; left: boolean }[] = [];
  const touchedCheckpoints = new Set<number>();
  const touchedAttempts = new Set<string>();
  const deployed = new Map<string, { host: string; timeUs: number }>();
  const begun = new Map<string, { host: string; timeUs: number }>();
  /** Ids of messages a message fault delayed or held, until they arrive or are dropped. */
  const slowed = new Set<unknown>();
  const hostFault = (host: string, t: number): void => {
    const list = hostFaults.get(host) ?? [];
    list.push(t);
    hostFaults.set(host, list);
    faultTimes.push(t);
  };
  for (const e of trace) {
    const id = e.attrs['checkpointId'];
    if (typeof id === 'number') {
      const span = live.get(id);
      if (span === undefined) live.set(id, { from: e.timeUs, to: e.timeUs });
      else span.to = e.timeUs;
    }
    if (RPC_FAULTS.has(e.type) || (e.type === 'mark' && e.attrs['name'] === 'rpc-lost')) {
      faultTimes.push(e.timeUs);
      rpcFaultTimes.push(e.timeUs);
    }
    if (slowed.size > 0 && (e.type === 'rpc.deliver' || e.type === 'rpc.drop') && slowed.delete(e.attrs['id'])) {
      rpcFaultTimes.push(e.timeUs);
    }
    switch (e.type) {
      case 'fault': {
        const action = e.attrs['action'];
        if (e.attrs['type'] !== 'message' || !(action === 'lose' || action === 'delay' || action === 'hold')) break;
        faultTimes.push(e.timeUs);
        rpcFaultTimes.push(e.timeUs);
        const n = e.attrs['checkpoint'];
        if (typeof n === 'number') touchedCheckpoints.add(n);
        const attemptId = e.attrs['attempt'];
        if (typeof attemptId === 'string') touchedAttempts.add(attemptId);
        if (action !== 'lose') slowed.add(e.attrs['id']);
        break;
      }
      case 'host.crash':
        hostFault(e.host, e.timeUs);
        break;
      case 'net.partition':
        hostFault(String(e.attrs['from']), e.timeUs);
        hostFault(String(e.attrs['to']), e.timeUs);
        break;
      case 'store.end': {
        const op = e.attrs['op'];
        const outcome = e.attrs['outcome'];
        const fault = outcome === 'failed' || outcome === 'unknown-outcome';
        // A delete that did not (surely) happen leaves what it was to remove; a put whose
        // outcome is unknown may have written its file, a failed one wrote nothing.
        const left = op === 'put' ? outcome === 'unknown-outcome' : fault;
        const path = String(e.attrs['path']);
        if (op === 'put' || op === 'delete') lastOnPath.set(path, { seq: e.seq, left });
        else if (op === 'deleteDirectory') directoryDeletes.push({ prefix: path.endsWith('/') ? path : `${path}/`, seq: e.seq, left });
        break;
      }
      case 'scheduler.deploy':
        deployed.set(String(e.attrs['task']), {
          host: hostOfTaskExecutor(String(e.attrs['taskExecutor'])), timeUs: e.timeUs,
        });
        break;
      case 'sink.transaction-begun':
        begun.set(txnKey(e.attrs['sink'], e.attrs['subtask'], e.attrs['attempt'], e.attrs['epoch']),
          { host: e.host, timeUs: e.timeUs });
        break;
      default:
        break;
    }
  }
  const hostHitAfter = (host: string, t: number): boolean =>
    (hostFaults.get(host) ?? []).some((f) => f >= t);
  const checkpoint = (n: number): boolean => {
    if (touchedCheckpoints.has(n)) return true;
    const span = live.get(n);
    return span !== undefined && faultTimes.some((t) => t >= span.from && t <= span.to);
  };
  const attempt = (a: string): boolean => {
    if (touchedAttempts.has(a)) return true;
    const d = deployed.get(a);
    return d !== undefined && hostHitAfter(d.host, d.timeUs);
  };
  const storeFaultLeft = (path: string): boolean => {
    let last = lastOnPath.get(path);
    for (const d of directoryDeletes) {
      if (path.startsWith(d.prefix) && (last === undefined || d.seq > last.seq)) last = d;
    }
    return last?.left === true;
  };
  return {
    checkpoint,
    attempt,
    storeFaultLeft,
    file: (path) => {
      if (storeFaultLeft(path)) return true;
      const n = checkpointOfPath(path);
      if (n !== undefined && checkpoint(n)) return true;
      const a = attemptOfPath(path);
      return a !== undefined && attempt(a);
    },
    transaction: (name) => {
      const key = parseTransaction(name);
      const b = key === undefined ? undefined : begun.get(key);
      if (b === undefined) return false;
      return hostHitAfter(b.host, b.timeUs) || rpcFaultTimes.some((t) => t >= b.timeUs);
    },
  };
}

/** `n` of a path `chk-n` or `chk-n/...` (or a savepoint's `savepoint-n...`: ids are shared). */
export function checkpointOfPath(path: string): number | undefined {
  const id = snapshotIdOfPath(path);
  return id < 0 ? undefined : id;
}

/** The attempt id of a state file path `chk-n/<vertex>#<subtask>@<attempt>/<uid>`. */
export function attemptOfPath(path: string): string | undefined {
  const m = /^(?:chk|savepoint)-\d+\/([^/]+#\d+@\d+)\//.exec(path);
  return m?.[1];
}

/** `taskexecutor@taskmanager-1` (optionally followed by `/<suffix>`) -> `taskmanager-1`. */
function hostOfTaskExecutor(address: string): string {
  const at = address.lastIndexOf('@');
  const rest = at < 0 ? address : address.slice(at + 1);
  return rest.split('/')[0] ?? rest;
}

function parseTransaction(name: string): string | undefined {
  const shown = /^(.+)#(\d+)@(\d+)\/e(\d+)$/.exec(name);
  if (shown !== null) return txnKey(shown[1], Number(shown[2]), Number(shown[3]), Number(shown[4]));
  const slashed = /^(.+)\/(\d+)\/(\d+)\/(\d+)$/.exec(name);
  if (slashed !== null) {
    return txnKey(slashed[1], Number(slashed[2]), Number(slashed[3]), Number(slashed[4]));
  }
  return undefined;
}

function txnKey(sink: unknown, subtask: unknown, attempt: unknown, epoch: unknown): string {
  return `${String(sink)}\u0000${String(subtask)}\u0000${String(attempt)}\u0000${String(epoch)}`;
}
