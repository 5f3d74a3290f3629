/**
 * A job run: one submission of the job to the cluster, with its own JobID, fenced JobMaster (RPC
 * endpoint and threads), checkpoint coordinator and checkpoint directory. A history holds the
 * first run and every run started from a savepoint or a retained checkpoint of an earlier one
 * (a restore, possibly at another parallelism). In Flink each is a separate job submission to the
 * Dispatcher, so an old run's RPCs never reach a new run's JobMaster: here each run's JobMaster
 * listens on its own address.
 *
 * Run 1 keeps the names a history of one run always had (address `jobmaster`, threads
 * `jobmaster/...`, checkpoint files at the store's root), so such histories keep their traces;
 * run n >= 2 uses `jobmaster-<n>`, `jobmaster-<n>/...` and `run-<n>/`, and every trace event of
 * its JobMaster and its tasks carries the attribute `jobRun: n` (absent: run 1).
 *
 * Attempt numbers keep growing across runs: run n's attempts are numbered from
 * `firstAttemptNumber`, above every attempt of the runs before it, so an attempt id
 * (`<vertex>#<subtask>@<attempt>`) names one attempt in the whole history and the transactional
 * store's fencing by attempt number orders the attempts of every run.
 *
 * @see org.apache.flink.api.common.JobID, org.apache.flink.runtime.dispatcher.Dispatcher#submitJob
 */
import type { EngineEnv } from '../api/EngineEnv.ts';
import { rpcAddress, type RpcAddress } from '../api/ids.ts';
import type { TraceAttrs, Tracer } from '../api/Tracer.ts';

/** One job run; see the file comment. */
export interface JobRun {
  /** 1 for the first run, counting up. */
  readonly index: number;
  /** Flink's JobID, rendered: `job-<index>`. */
  readonly jobId: string;
  /** The JobMaster's RPC endpoint. */
  readonly address: RpcAddress;
  /** Prefix of the JobMaster's executor names (`<prefix>/main`, `<prefix>/io-k`, ...). */
  readonly executorPrefix: string;
  /** Prefix of the run's checkpoint and savepoint paths in the object store ('' or `run-<n>/`). */
  readonly storagePrefix: string;
  /** The attempt number of every subtask's first attempt in this run. */
  readonly firstAttemptNumber: number;
}

/** The first run of a job. */
export const FIRST_JOB_RUN: JobRun = jobRun(1, 0);

/**
 * Job run `index` (>= 1) whose first attempts are numbered `firstAttemptNumber` (0 for run 1).
 * @throws Error for an index below 1 or a negative attempt number (a harness mistake).
 */
export function jobRun(index: number, firstAttemptNumber: number): JobRun {
  if (!Number.isInteger(index) || index < 1) throw new Error(`job run index must be >= 1, got ${index}`);
  if (!Number.isInteger(firstAttemptNumber) || firstAttemptNumber < 0) {
    throw new Error(`first attempt number must be >= 0, got ${firstAttemptNumber}`);
  }
  const first = index === 1;
  return Object.freeze({
    index,
    jobId: `job-${index}`,
    address: rpcAddress(first ? 'jobmaster' : `jobmaster-${index}`),
    executorPrefix: first ? 'jobmaster' : `jobmaster-${index}`,
    storagePrefix: first ? '' : `run-${index}/`,
    firstAttemptNumber,
  });
}

/** The job run a trace event belongs to: its `jobRun` attribute, else 1. */
export function jobRunOf(attrs: TraceAttrs): number {
  const r = attrs['jobRun'];
  return typeof r === 'number' ? r : 1;
}

/**
 * `env` as seen by the components of job run `runIndex` (its JobMaster, its tasks): the same
 * ports, with a tracer that adds `jobRun: <index>` to every event and mark of a run after the
 * first (run 1's events stay as they were).
 */
export function jobRunEnv(env: EngineEnv, runIndex: number): EngineEnv {
  if (runIndex === 1) return env;
  const tracer = env.tracer;
  const tag = (attrs: TraceAttrs | undefined): TraceAttrs => ({ ...(attrs ?? {}), jobRun: runIndex });
  const runTracer: Tracer = {
    event: (type, attrs, cause) => tracer.event(type, tag(attrs), cause),
    mark: (name, attrs) => tracer.mark(name, tag(attrs)),
    causedBy: (cause) => tracer.causedBy(cause),
    current: () => tracer.current(),
  };
  return { ...env, tracer: runTracer };
}
