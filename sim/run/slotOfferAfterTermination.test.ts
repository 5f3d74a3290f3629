/**
 * A slot offered to a JobMaster after its job reached a terminal state is rejected, so the
 * TaskExecutor frees it (Flink's JobMaster has stopped by then, and the offer fails). Here a
 * TaskManager is lost while the job is being cancelled for a rescale: the failover's slot request
 * reaches the ResourceManager, which allocates a slot on the other TaskManager and the offer
 * arrives after CANCELED. Accepted, that slot stayed out of every later job run, and the third
 * run (parallelism 4 on 4 slots) waited for it forever (found by explore --job generated --seed 51).
 * With the slot freed, run 2 gets it, the second rescale ends run 2 by a stop-with-savepoint, and
 * run 3 at parallelism 4 gets every slot and finishes.
 */
import { expect, test } from 'vitest';
import { simulate } from './simulate.ts';
import { RUN_SPEC_VERSION, type RunSpec } from './RunSpec.ts';

const spec = { ...({
  "version": 8,
  "seed": "s1632118881",
  "job": {
    "kind": "generated",
    "spec": {
      "records": [
        [
          0,
          0
        ]
      ],
      "stages": [
        {
          "kind": "splitOwners",
          "parallelism": 1
        },
        {
          "kind": "keyed",
          "key": 0,
          "fn": 0,
          "parallelism": 1
        }
      ],
      "sourceParallelism": 1,
      "sinkParallelism": 1,
      "maxParallelism": 128
    }
  },
  "parallelism": 1,
  "taskManagers": 2,
  "checkpoint": {
    "mode": "at-least-once",
    "intervalMs": 200,
    "maxConcurrent": 1,
    "tolerableFailures": 0,
    "retention": "RETAIN_ON_CANCELLATION"
  },
  "restartStrategy": {
    "kind": "fixed-delay",
    "attempts": "unlimited",
    "delayMs": 10
  },
  "faults": [
    {
      "type": "partition",
      "a": "taskmanager-1",
      "b": "jobmanager",
      "oneWay": false,
      "when": {
        "atMs": 91
      },
      "durationMs": 15
    },
    {
      "type": "partition",
      "a": "taskmanager-1",
      "b": "jobmanager",
      "oneWay": false,
      "when": {
        "atMs": 408
      },
      "durationMs": 23
    }
  ],
  "actions": [
    {
      "type": "rescale",
      "when": {
        "atMs": 455
      },
      "parallelism": 4
    },
    {
      "type": "rescale",
      "via": "cancel",
      "parallelism": 2,
      "when": {
        "at": {
          "kind": "jobmaster",
          "checkpoint": 2,
          "phase": "completed"
        }
      }
    }
  ],
  "healTimeMs": 600,
  "budgets": {
    "maxEvents": 5000000,
    "maxTimeMs": 30000
  },
  "overrides": [],
  "mutations": [],
  "network": {
    "recordsPerBuffer": 1
  },
  "costsMs": {
    "gen-source": 100,
    "gen-0-splitOwners": 5,
    "gen-1-keyed-rem4-count": 5,
    "gen-sink": 5
  }
}), version: RUN_SPEC_VERSION } as RunSpec;

test('an offer after the job terminated is rejected and the slot freed; the next runs get every slot', () => {
  const result = simulate(spec);
  const rejected = result.trace.filter((e) => e.type === 'jm.slotsRejected');
  expect(rejected.map((e) => e.attrs)).toEqual([{ count: 1, reason: 'job terminated' }]);
  // The rejected slot (taskmanager-2's slot 0) was freed: the ResourceManager gives it to run 2.
  const after = result.trace.slice(result.trace.indexOf(rejected[0] as (typeof result.trace)[number]));
  expect(after.some((e) => e.type === 'rm.slotAllocated' && e.attrs['taskExecutor'] === 'taskexecutor@taskmanager-2/0' && e.attrs['slot'] === 0)).toBe(true);
  expect(result.jobRuns.map((r) => r.status)).toEqual(['CANCELED', 'FINISHED', 'FINISHED']);
  expect(result.jobRuns[2]?.parallelism['gen-source']).toBe(4);
  expect(result.jobStatus).toBe('FINISHED');
});
