/**
 * InvariantChecks: the `checkInvariants()` functions engine objects register through their
 * host's InvariantRegistry (STYLE.md). The World calls them all after each event when a run asks
 * for it. A host's checks vanish with its incarnation (the objects died with it).
 */
import type { InvariantRegistry } from '../engine/api/index.ts';
import type { SimHost } from './SimHost.ts';

interface Check {
  readonly host: SimHost;
  readonly name: string;
  readonly check: () => void;
}

export class InvariantChecks {
  private readonly checks = new Map<number, Check>();
  private nextId = 0;

  /** The registry of `host`'s current incarnation. */
  registry(host: SimHost): InvariantRegistry {
    const incarnation = host.incarnation;
    return {
      register: (name, check) => {
        if (!host.alive || host.incarnation !== incarnation) return () => {};
        const id = this.nextId++;
        this.checks.set(id, { host, name, check });
        return () => {
          this.checks.delete(id);
        };
      },
    };
  }

  /** Forgets every check of `host` (it crashed). */
  removeHost(host: SimHost): void {
    for (const [id, c] of [...this.checks]) if (c.host === host) this.checks.delete(id);
  }

  /** Number of registered checks. */
  get size(): number {
    return this.checks.size;
  }

  /** Runs every check in registration order; a failing check's AssertionError propagates. */
  runAll(): void {
    for (const c of this.checks.values()) c.check();
  }
}
