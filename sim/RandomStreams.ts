/**
 * RandomStreams: one root seed (a string) gives named, independent pseudo-random streams on
 * seedrandom's alea generator, each seeded with `${root}/${name}`. Streams are created lazily;
 * drawing from one never shifts another. This is the only file of sim/ that imports seedrandom.
 */
import seedrandom from 'seedrandom';
import { SimInputError } from './SimInputError.ts';

/** A stream of uniform draws in [0, 1). */
export type RandomStream = () => number;

export class RandomStreams {
  private readonly streams = new Map<string, RandomStream>();

  /** @throws SimInputError if `rootSeed` is not a string. */
  constructor(readonly rootSeed: string) {
    if (typeof rootSeed !== 'string') {
      throw new SimInputError(`seed must be a string, got ${typeof rootSeed}`);
    }
  }

  /** The stream called `name`, created on first use with seed `${rootSeed}/${name}`. */
  stream(name: string): RandomStream {
    let s = this.streams.get(name);
    if (s === undefined) {
      s = seedrandom.alea(`${this.rootSeed}/${name}`);
      this.streams.set(name, s);
    }
    return s;
  }
}
