import { describe, expect, test } from 'vitest';
import type { StreamRecord } from '../api/StreamRecord.ts';
import { AbstractStreamOperator } from '../operators/AbstractStreamOperator.ts';
import { MapOperator } from '../operators/MapOperator.ts';
import { OperatorChain } from './OperatorChain.ts';

/** An operator that logs the subsumption notifications it gets, and may throw on them. */
class Recording extends AbstractStreamOperator {
  constructor(uid: string, private readonly log: string[], private readonly fails = false) {
    super(uid);
  }

  processElement(record: StreamRecord): void {
    this.output.collect(record);
  }

  override notifyCheckpointSubsumed(checkpointId: number): void {
    this.log.push(`${this.uid}:${checkpointId}`);
    if (this.fails) throw new Error(`${this.uid} failed`);
  }
}

describe('OperatorChain.notifyCheckpointSubsumed (RegularOperatorChain)', () => {
  test('notifies every operator tail to head; one that throws does not stop the others, and the '
    + 'first error is rethrown', () => {
    const log: string[] = [];
    const chain = new OperatorChain([
      new Recording('head', log, true), new Recording('middle', log, true), new Recording('tail', log),
    ], { collect: () => {} });
    expect(() => chain.notifyCheckpointSubsumed(4)).toThrow('middle failed');
    expect(log).toEqual(['tail:4', 'middle:4', 'head:4']);
  });

  test('an operator that does not override it does nothing (AbstractStreamOperator)', () => {
    const chain = new OperatorChain([new MapOperator('map', (x) => x)], { collect: () => {} });
    expect(() => chain.notifyCheckpointSubsumed(1)).not.toThrow();
  });
});
