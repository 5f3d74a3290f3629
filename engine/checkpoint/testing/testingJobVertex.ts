/**
 * A CheckpointJobVertex for unit tests: the max parallelism defaults to Flink's derived default
 * of the parallelism (not configured, so a restore may adopt the state's), and
 * `setMaxParallelism` changes it as ExecutionJobVertex.setMaxParallelism does.
 */
import { computeDefaultMaxParallelism } from '../../state/KeyGroupRangeAssignment.ts';
import type { CheckpointJobVertex } from '../CheckpointCoordinatorContext.ts';

/** The fields a test gives; see the file comment for the defaults. */
export interface TestingJobVertexOptions {
  readonly id: string;
  readonly parallelism: number;
  readonly isSource?: boolean;
  readonly operatorUids: readonly string[];
  /** Given: configured (unless `maxParallelismConfigured` says otherwise). */
  readonly maxParallelism?: number;
  readonly maxParallelismConfigured?: boolean;
}

/** A vertex whose max parallelism can be adopted unless configured. */
export function testingJobVertex(o: TestingJobVertexOptions): CheckpointJobVertex {
  let maxParallelism = o.maxParallelism ?? computeDefaultMaxParallelism(o.parallelism);
  const configured = o.maxParallelismConfigured ?? o.maxParallelism !== undefined;
  return {
    id: o.id,
    parallelism: o.parallelism,
    isSource: o.isSource ?? false,
    operatorUids: o.operatorUids,
    get maxParallelism() { return maxParallelism; },
    maxParallelismConfigured: configured,
    setMaxParallelism(m: number) {
      if (configured) throw new Error(`Cannot override a configured max parallelism of ${o.id}`);
      maxParallelism = m;
    },
  };
}
