/**
 * The Node flags the command line runs with: the shebang of cli/main.ts and package.json's
 * `start` and `bench` scripts pass exactly these (nodeFlags.test.ts keeps them equal), the
 * acceptance script starts the command line with them, and `bench` runs each area's process
 * with them (runBench.ts).
 *
 * A young generation of two fixed 64 MB semi-spaces. Explore allocates about 3.4 MB per simulated
 * run, nearly all of it dead when the run ends. With V8's default (semi-spaces growing from 1 MB
 * to at most 16 MB) a scavenge came every few runs and copied the live state of the run in
 * progress each time, promoting much of it to the old generation; with 64 MB about every
 * twentieth run pays one copy. Measured on the explore bench's workload (250 runs in steady
 * state): 72 scavenges and 1.5 ms of main-thread GC per run before, 18 and 0.45 ms after.
 * The cost is memory: up to 192 MB of young generation, on machines with gigabytes.
 */
export const NODE_FLAGS: readonly string[] = Object.freeze([
  '--max-semi-space-size=64',
  '--min-semi-space-size=64',
]);
