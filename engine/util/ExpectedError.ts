/**
 * ExpectedError: the base of errors that are expected outcomes rather than bugs — a declined
 * checkpoint, a broken connection, a timed-out ask, a failed store operation. They travel as
 * values (a future's failure, an `onError` call, a decline's reason) and are handled; nobody
 * reads their stack. So they are built without one: capturing a stack trace is most of the
 * cost of constructing an Error, and some of these are made many times per run (a checkpoint
 * plan that finds tasks not running, every connection that breaks at a crash).
 *
 * `instanceof`, `name`, `message` and `cause` behave as for any Error; `stack` holds only the
 * first line (`Name: message`). Bugs stay AssertionErrors, with their stacks.
 */

import { NO_EVENT, type EventRef } from '../api/Tracer.ts';

/** The engine's view of V8's stack trace depth setting (not part of ES2022). */
const v8Error = Error as unknown as { stackTraceLimit: number | undefined };

/** An error that is an expected outcome; created without a stack trace (see the file comment). */
export class ExpectedError extends Error {
  /**
   * The trace event that made this outcome, when whoever made it knows one (a store operation's
   * end, an ask's timeout, the end of a task a call found gone), for cause links: whoever handles
   * it later, once other work has run, handles it by that event's doing. NO_EVENT otherwise.
   */
  event: EventRef = NO_EVENT;

  constructor(message?: string, options?: ErrorOptions) {
    // The setting is read when the Error constructor runs and restored right after it (even if
    // reading `options` threw), so no other error ever sees it.
    const limit = v8Error.stackTraceLimit;
    v8Error.stackTraceLimit = 0;
    try {
      super(message, options);
    } finally {
      v8Error.stackTraceLimit = limit;
    }
  }
}
