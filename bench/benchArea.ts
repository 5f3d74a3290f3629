/**
 * One benchmark area in a process of its own: `node <NODE_FLAGS> bench/benchArea.js <area>`
 * prints that area's result as one line of JSON on stdout (runBench.ts starts it). A failure
 * (for example a violation in the explore bench) is printed on stderr with exit code 1.
 */
import { benchArea, isBenchArea } from './runBench.ts';

const area = process.argv[2] ?? '';
if (!isBenchArea(area)) {
  process.stderr.write(`benchArea: unknown area ${JSON.stringify(area)}\n`);
  process.exit(2);
}
try {
  process.stdout.write(`${JSON.stringify(benchArea(area))}\n`);
} catch (e) {
  process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
  process.exitCode = 1;
}
