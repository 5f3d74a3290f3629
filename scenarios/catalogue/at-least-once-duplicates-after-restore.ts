import { checkpoint, crash, defineScenario, expect, pause } from '../index.ts';

export default defineScenario({
  name: 'at-least-once-duplicates-after-restore',
  protects: 'In at-least-once mode a restore replays records the sink had already committed: the duplicates are expected, and each is attributed to the restore whose checkpoint position allows it, with no record lost.',
  source: 'mirrors Flink CheckpointBarrierTrackerTest (at-least-once barriers do not block channels)',
  config: { checkpoint: { mode: 'at-least-once' } },
  steps: [
    // TaskManager 1 (v0#0, v1#0) pauses as checkpoint 4 is triggered: v1#1 keeps processing
    // v0#1's records after its barrier while v0#0's barrier is late (at-least-once barriers
    // block no channel), so they go into v1#1's snapshot of checkpoint 4 and its transaction.
    { at: checkpoint(4).triggered(), do: pause('taskmanager-1', 15) },
    // After checkpoint 4: the restore goes back to it, commits its transactions and reads the
    // records after v0#1's barrier again.
    { at: checkpoint(4).completed(), do: crash('taskmanager-2') },
  ],
  expect: [
    expect.restoredFrom(4, { nth: 1 }),
    expect.duplicates({ atLeast: 1 }),
    expect.jobStatus('FINISHED'),
  ],
});
