/**
 * plantEngineAssertion (tests only; testing/ is not built): makes the real engine fail an
 * assertion inside a run of any RunSpec, without a hook in production code. While planted, every
 * KeyedProcessOperator checks with the engine's own `assert`, before it hands a record to its
 * function, that the record is not one `fails` picks, as a bug in the operator would; `simulate`
 * and everything above it run unchanged. The throw happens on the task's mailbox thread, so its
 * location is the engine frame that handed the record over (sim/engineAssertion.ts).
 *
 * It replaces a method on the class's prototype: plant it around one test's runs only, and
 * always call the function it returns (in a `finally`), which puts the method back.
 */
import { assert, KeyedProcessOperator, type StreamRecord } from '../../engine/index.ts';

/** Plants the assertion; returns the function that removes it. */
export function plantEngineAssertion(
  fails: (record: StreamRecord) => boolean,
  message = 'planted engine assertion',
): () => void {
  const proto = KeyedProcessOperator.prototype;
  const original = proto.processElement;
  proto.processElement = function planted(this: KeyedProcessOperator, record: StreamRecord): void {
    assert(!fails(record), message);
    original.call(this, record);
  };
  return () => {
    proto.processElement = original;
  };
}
