/**
 * `replay ... --mermaid <file.md>`: writes the explanation's causal window (the events its cause
 * chains walked, with both ends of each RPC among them: properties/explain/causalWindow.ts) as
 * a Mermaid sequence diagram in a Markdown file (reports/mermaidSequence.ts: at most 60
 * messages, the last ones; described events as notes). GitHub and most Markdown viewers draw
 * the ```mermaid block.
 */
import { causalWindow, rpcAbout } from '../../properties/explain/causalWindow.ts';
import { EventIndex } from '../../properties/explain/EventIndex.ts';
import { describerOf } from '../../properties/explain/explainRun.ts';
import type { ReplayOutcome } from '../../properties/explore/replay.ts';
import { mermaidMarkdown, mermaidSequence, sequenceStepsOf } from '../../reports/mermaidSequence.ts';
import { OutputFile } from '../outputFile.ts';
import type { Io } from '../program.ts';

/** The option's help line. */
export const MERMAID_HELP = 'write the explanation as a Mermaid sequence diagram in a Markdown file';

/**
 * A diagram to write to `path` (from --mermaid), or undefined without one; checked before the
 * run. @throws UsageError (one line) when it cannot be written there.
 */
export function replayMermaid(path: string | undefined): ((io: Io, outcome: ReplayOutcome, title: string, json: boolean) => void) | undefined {
  const file = OutputFile.of('--mermaid', path);
  if (file === undefined) return undefined;
  return (io, outcome, title, json) => {
    const window = causalWindow(outcome.result.trace, outcome.explanation);
    const index = new EventIndex(outcome.result.trace);
    const steps = sequenceStepsOf(window, describerOf(outcome.result), { about: (send) => rpcAbout(index, send) });
    const messages = steps.filter((s) => s.kind === 'message').length;
    const heading = outcome.violation === undefined ? `${title}: what the run went through`
      : `${title}: ${outcome.violation.property}: ${outcome.violation.summary}`;
    file.write(mermaidMarkdown(mermaidSequence(steps, { title, showTimes: true }), heading));
    const line = `wrote ${file.given} (${messages} messages, ${steps.length - messages} notes)\n`;
    if (json) io.err(line);
    else io.out(line);
  };
}
