/**
 * The wordcount job over a small built-in text: lines read as splits of consecutive lines,
 * flatMapped to lowercased words, keyed by word, counted in a ValueState, each word emitted with
 * its running count, into a sink.
 *
 * The emitted count of one record depends on arrival order (like flights' sequence numbers),
 * but per word the counts are exactly 1..n and the final state is order-insensitive. The user
 * functions are exported so the reference fold runs the very same code the engine runs.
 */
import {
  consecutiveSplits, splitSource, StreamExecutionEnvironment,
} from '../../engine/index.ts';
import type {
  Collector, FlatMapFunction, KeyedContext, KeyedProcessFunction, KeySelector, SinkDefinition,
  SplitData, StreamGraph,
} from '../../engine/index.ts';

/** The built-in text, one line per element (composed for this project). */
export const WORDCOUNT_TEXT: readonly string[] = Object.freeze([
  'The river wakes before the town does, and the mill wheel turns',
  'its first slow circle while the baker counts loaves by lamplight.',
  'A ferryman calls across the water; the water answers with fog.',
  'Nobody in the town remembers who built the mill, or why the wheel',
  'was painted red, but every child knows the sound it makes in spring.',
  'The baker says the wheel keeps time better than the church clock.',
  'The church clock says nothing, having stopped in a winter long ago.',
  'In the square the market sets out apples, rope, salt and candles,',
  'and the weighers argue over the weights as weighers always have.',
  'A letter arrives for the ferryman, the first in seven years;',
  'he reads it twice, folds it once, and puts it in his coat.',
  'By noon the fog has lifted and the river shows its stones.',
  'The children count the stones and lose count and begin again.',
  'Counting is a kind of promise: every stone once, and only once.',
  'The miller keeps a ledger of sacks, one line for every sack,',
  'and when the ledger and the sacks disagree he counts them both again.',
  'Once a flood took half the sacks and all the ledger pages,',
  'and the miller rebuilt the count from what the buyers remembered.',
  'Some remembered twice, some forgot, and the sum was never quite right.',
  'Since then the miller copies his ledger every evening to a second book',
  'kept in the church, high above the reach of any river.',
  'In the afternoon the ferryman crosses with a cart of apples',
  'and a goat that will not stand still, and the ferry leans and rights itself.',
  'The goat eats one apple; the ferryman writes it down.',
  'Evening comes in from the hills with the smell of rain.',
  'The market packs its rope and salt and candles into crates,',
  'the weighers shake hands, and the square is empty again.',
  'The baker banks the oven; the mill wheel slows and stops.',
  'The ferryman reads his letter a third time by the last light,',
  'then writes an answer of one line and seals it for the morning.',
  'At night the river keeps counting stones in the dark,',
  'every stone once, and the town sleeps on the sound of it.',
]);

/** Default number of splits of consecutive lines. */
export const WORDCOUNT_DEFAULT_SPLITS = 4;

/** Stable operator uids. */
export const WORDCOUNT_UIDS = Object.freeze({
  source: 'wordcount-source',
  tokenize: 'wordcount-tokenize',
  count: 'wordcount-count',
  sink: 'wordcount-sink',
});

/** Name of the keyed ValueState holding the word's count. */
export const WORD_COUNT_STATE = 'count';

/** What the job emits per word occurrence. */
export interface WordCountOutput {
  readonly word: string;
  readonly count: number;
}

/** Splits a line into lowercased words: maximal runs of letters, everything else separates. */
export const tokenizeLine: FlatMapFunction<string, string> = (
  line: string,
  out: Collector<string>,
) => {
  for (const word of line.toLowerCase().split(/[^\p{L}]+/u)) {
    if (word !== '') out.collect(word);
  }
};

/** The key selector: the word itself. */
export const wordKey: KeySelector<string> = (word) => word;

/** The keyed process function: increments the word's count and emits it. */
export const countWords: KeyedProcessFunction<string, string, WordCountOutput> = {
  processElement(word: string, ctx: KeyedContext<string>, out: Collector<WordCountOutput>): void {
    const state = ctx.getState<number>({ kind: 'value', name: WORD_COUNT_STATE });
    const count = (state.value() ?? 0) + 1;
    state.update(count);
    out.collect({ word, count });
  },
};

/** Options of {@link wordcountJob}. */
export interface WordcountJobOptions {
  readonly sink: SinkDefinition;
  /** Parallelism of every operator; default 1. */
  readonly parallelism?: number;
  readonly maxParallelism?: number;
  /** Number of splits of consecutive lines; default {@link WORDCOUNT_DEFAULT_SPLITS}. */
  readonly splits?: number;
  /** The text; default {@link WORDCOUNT_TEXT}. */
  readonly lines?: readonly string[];
}

/**
 * Builds the wordcount job: splits of lines → flatMap({@link tokenizeLine}) → keyBy(word) →
 * {@link countWords} → sink, every operator at one parallelism.
 * @throws Error for a bad split count; InvalidJobError for bad parallelism.
 */
export function wordcountJob(options: WordcountJobOptions): StreamGraph {
  const env = new StreamExecutionEnvironment({
    jobName: 'wordcount', parallelism: options.parallelism ?? 1,
    ...(options.maxParallelism === undefined ? {} : { maxParallelism: options.maxParallelism }),
  });
  const splits = consecutiveSplits(
    options.lines ?? WORDCOUNT_TEXT, options.splits ?? WORDCOUNT_DEFAULT_SPLITS,
  );
  buildWordcountPipeline(env, splits, options.sink);
  return env.getStreamGraph();
}

/**
 * Adds the wordcount job's operators to `env` over `splits` of lines: source (uid
 * wordcount-source) → flatMap({@link tokenizeLine}) → keyBy(word) → {@link countWords} → `sink`,
 * at the environment's parallelism and max parallelism.
 * @throws InvalidJobError for bad parallelism.
 */
export function buildWordcountPipeline(env: StreamExecutionEnvironment, splits: readonly SplitData<string>[], sink: SinkDefinition): void {
  env.fromSource(splitSource(splits), { name: 'lines', uid: WORDCOUNT_UIDS.source })
    .flatMap(tokenizeLine, { name: 'tokenize', uid: WORDCOUNT_UIDS.tokenize })
    .keyBy<string>(wordKey)
    .process(countWords, { name: 'count', uid: WORDCOUNT_UIDS.count })
    .sinkTo(sink, { name: 'counts', uid: WORDCOUNT_UIDS.sink });
}
