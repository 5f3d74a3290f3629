/**
 * mutantSearches: where the scoreboard searches for each planted bug, from the catalogue: the job
 * and the checkpointing mode in which the bug's code runs (a bug of the at-least-once barrier
 * tracker exists only in at-least-once mode). A bug whose entry names none is searched in the
 * generated jobs, aligned: the explorer's most varied shapes, in the mode of the exactly-once
 * promise.
 */
import { PLANTED_BUG_CATALOGUE, type PlantedBugInfo } from '../plantedBugCatalogue.ts';
import type { MutantSearch } from './scoreMutant.ts';

/** Where a bug is searched when its catalogue entry says nothing. */
export const DEFAULT_MUTANT_SEARCH = { job: 'generated', mode: 'aligned' } as const;

/**
 * The searches of the bugs named by `only` (in that order), or of every planted bug (in catalogue
 * order) when absent.
 * @throws what `badInput` makes of the message, for an unknown or repeated id.
 */
export function mutantSearches(only: readonly string[] | undefined, badInput: (message: string) => Error): MutantSearch[] {
  const known = new Map(PLANTED_BUG_CATALOGUE.map((b) => [b.id, b]));
  const ids = only ?? PLANTED_BUG_CATALOGUE.map((b) => b.id);
  const repeated = ids.find((id, i) => ids.indexOf(id) !== i);
  if (repeated !== undefined) throw badInput(`planted bug '${repeated}' named twice`);
  return ids.map((id) => {
    const bug = known.get(id);
    if (bug === undefined) throw badInput(`unknown planted bug '${id}' (planted bugs: ${[...known.keys()].join(', ')})`);
    return searchOf(bug);
  });
}

function searchOf(bug: PlantedBugInfo): MutantSearch {
  const where = bug.search ?? DEFAULT_MUTANT_SEARCH;
  return { id: bug.id, job: where.job, mode: where.mode };
}
