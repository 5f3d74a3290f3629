/**
 * The description of a registered keyed state: its name and its kind. The name is unique per
 * backend; re-registering a name with another kind is a programmer error. Snapshots carry the
 * descriptors (Flink's state meta info) so a restored backend knows every state it holds.
 *
 * @see org.apache.flink.api.common.state.StateDescriptor
 * @see org.apache.flink.runtime.state.RegisteredKeyValueStateBackendMetaInfo
 */

/** Which state primitive a descriptor names. */
export type StateKind = 'value' | 'map' | 'list';

/** A registered keyed state: `name` (unique per backend) and `kind`. */
export interface StateDescriptor {
  readonly name: string;
  readonly kind: StateKind;
}
