/**
 * Virtual time. Integer microseconds since the start of the run; never real time.
 * @see org.apache.flink.util.clock.Clock (Flink injects its clock the same way)
 */
export interface Clock {
  /** The current virtual time in microseconds (a non-negative integer). */
  nowUs(): number;
}
