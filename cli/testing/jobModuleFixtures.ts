/**
 * Job module sources for the tests that load users' modules (cli/jobModules.test.ts, the library
 * explore's test): a small transfers job with a fee imported from a local file, and the classic
 * two-phase-commit mistake to plant in its sink.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A transfers job: records {account, amount} → fee map → keyBy(account) → balance → sink.
 * `sink` is the sink expression; `extra` is spliced into the map function's body.
 */
export function transfersModule(options: { sink?: string; extra?: string; head?: string; keyed?: string } = {}): string {
  return `import { defineJob, splitSource, twoPhaseCommitSink, TwoPhaseCommitSinkFunction } from 'checkpoint-sim';
import { fee } from './fee.ts';
${options.head ?? ''}
export default defineJob({
  name: 'transfers',
  parallelism: 2,
  input: {
    maxSize: 300,
    generate: (size) => Array.from({ length: 4 }, (_x, id) => ({
      id, records: Array.from({ length: Math.ceil(size / 4) }, (_y, i) => ({ account: 'a' + ((i * 7 + id) % 5), amount: i % 9 })),
    })),
  },
  build(env, splits) {
    env.fromSource(splitSource(splits), { uid: 'transfers' })
      .map((t) => { ${options.extra ?? ''} return { ...t, amount: fee(t.amount) }; }, { uid: 'fee' })
      .keyBy((t) => t.account)
      .process(${options.keyed ?? `{
        processElement(t, ctx, out) {
          const s = ctx.getState({ kind: 'value', name: 'balance' });
          s.update((s.value() ?? 0) + t.amount);
          out.collect({ account: t.account, amount: t.amount });
        },
      }`}, { uid: 'balances' })
      .sinkTo(${options.sink ?? "twoPhaseCommitSink('ledger')"}, { uid: 'ledger' });
  },
});
`;
}

/**
 * Writes `source` as `<base>/<name>/job.ts` in a module directory (outside any project: a
 * package.json saying ES modules, no node_modules) with fee.ts beside it; returns job.ts's path.
 */
export function moduleIn(base: string, name: string, source: string): string {
  const dir = join(base, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  writeFileSync(join(dir, 'fee.ts'), 'export function fee(x: number): number { return x * 100 - 1; }\n');
  writeFileSync(join(dir, 'job.ts'), source);
  return join(dir, 'job.ts');
}

/** A sink that makes its output visible in snapshotState: the classic two-phase-commit mistake. */
export const COMMITS_IN_SNAPSHOT = `twoPhaseCommitSink('ledger', () => new (class extends TwoPhaseCommitSinkFunction {
  preCommit(txn) { txn.preCommit(); txn.commit(); }
})())`;

