/**
 * builderOptions: the check every scenario builder that takes an options object makes first. A
 * scenario run with tsx or vitest is not type-checked, so a misspelt option (`{ nht: 2 }`,
 * `{ drian: true }`) would otherwise be dropped without a word and the scenario would test
 * something else; the JSON form refuses it through its schema, the builders the same way here.
 */
import { SimInputError } from '../sim/SimInputError.ts';

/**
 * Throws unless `options` is a plain object whose keys are all in `allowed`.
 * @param call how the builder was called, for the message (e.g. `job.reaches(RESTARTING)`).
 * @throws SimInputError `<call>: unknown option "<key>" (options: ...)`, or `<call>: options must
 *   be an object` for null, an array or a primitive.
 */
export function checkBuilderOptions(call: string, options: unknown, allowed: readonly string[]): void {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new SimInputError(`${call}: options must be an object such as { ${allowed[0] ?? ''}: ... }, got ${options === null ? 'null' : Array.isArray(options) ? 'an array' : typeof options}`);
  }
  const unknown = Object.keys(options).find((k) => !allowed.includes(k));
  if (unknown !== undefined) {
    throw new SimInputError(`${call}: unknown option ${JSON.stringify(unknown)} (options: ${allowed.join(', ')})`);
  }
}
