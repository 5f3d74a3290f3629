import { expect, test } from 'vitest';
import { CompletableFuture } from './CompletableFuture.ts';

test('callbacks run once each, in order, also when registered while completing', () => {
  const f = new CompletableFuture<number>();
  const log: string[] = [];
  f.thenApply((v) => log.push(`a${v}`));
  f.whenComplete((v) => {
    log.push(`b${v}`);
    f.thenApply((w) => log.push(`late${w}`));
  });
  f.exceptionally(() => 0).thenApply((v) => log.push(`c${v}`));
  expect(f.complete(1)).toBe(true);
  expect(f.complete(2)).toBe(false);
  f.thenApply((v) => log.push(`d${v}`));
  expect(log).toEqual(['a1', 'b1', 'late1', 'c1', 'd1']);
});

test('a failure reaches every listener', () => {
  const f = new CompletableFuture<number>();
  const errors: unknown[] = [];
  f.whenComplete((_v, e) => errors.push(e));
  f.whenComplete((_v, e) => errors.push(e));
  const boom = new Error('boom');
  f.completeExceptionally(boom);
  expect(errors).toEqual([boom, boom]);
  expect(f.isCompletedExceptionally()).toBe(true);
});
