/**
 * An InvariantRegistry for unit tests: keeps the registered checks and runs them all on
 * {@link TestingInvariantRegistry.checkAll} (hook it to TestingScheduler.afterEachTask to check
 * after every step, as the sim does when a run asks for it).
 *
 * Invariants: checks run in registration order; an unregistered check never runs again.
 */
import type { InvariantRegistry } from '../api/EngineEnv.ts';

export class TestingInvariantRegistry implements InvariantRegistry {
  private readonly checks = new Map<number, { name: string; check: () => void }>();
  private nextId = 0;

  register(name: string, check: () => void): () => void {
    const id = this.nextId++;
    this.checks.set(id, { name, check });
    return () => {
      this.checks.delete(id);
    };
  }

  /** The names of the registered checks, in registration order. */
  names(): string[] {
    return [...this.checks.values()].map((c) => c.name);
  }

  /** Runs every registered check. @throws whatever a check throws. */
  checkAll(): void {
    for (const { check } of this.checks.values()) check();
  }
}
