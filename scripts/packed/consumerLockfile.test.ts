import { describe, expect, test } from 'vitest';
import { consumerLockfile, type Lockfile } from './consumerLockfile.ts';

/** checkpoint-sim needing a (which needs b, and c optionally), with dev tools t and u. */
const repoLock: Lockfile = {
  name: 'checkpoint-sim', lockfileVersion: 3,
  packages: {
    '': {
      name: 'checkpoint-sim', version: '0.1.0', license: 'Apache-2.0', dependencies: { a: '1.0.0' },
      devDependencies: { t: '2.0.0', u: '1.0.0' }, bin: { 'checkpoint-sim': 'dist/cli/main.js' },
    },
    'node_modules/a': { version: '1.0.0', integrity: 'sha512-a', dependencies: { b: '^1' }, optionalDependencies: { c: '1' } },
    'node_modules/b': { version: '1.2.0', integrity: 'sha512-b' },
    'node_modules/c': { version: '1.0.0', integrity: 'sha512-c', optional: true, dependencies: { d: '1' } },
    'node_modules/d': { version: '1.0.0', integrity: 'sha512-d', optional: true },
    // t needs b@2, nested under it, and p as a peer; q is an optional peer and left out.
    'node_modules/t': {
      version: '2.0.0', integrity: 'sha512-t', dev: true, dependencies: { b: '^2' },
      peerDependencies: { p: '*', q: '*' }, peerDependenciesMeta: { q: { optional: true } },
    },
    'node_modules/t/node_modules/b': { version: '2.0.0', integrity: 'sha512-b2', dev: true },
    'node_modules/p': { version: '1.0.0', integrity: 'sha512-p', dev: true, peer: true },
    'node_modules/q': { version: '1.0.0', integrity: 'sha512-q', dev: true },
    'node_modules/u': { version: '1.0.0', integrity: 'sha512-u', dev: true },
  },
};

describe('consumerLockfile', () => {
  test('keeps what checkpoint-sim and the tools reach, where it is, as dev; optional only when reached optionally', () => {
    const { devDependencies, lockfile } = consumerLockfile(repoLock, 'consumer', {
      tarball: 'checkpoint-sim-0.1.0.tgz', integrity: 'sha512-self', packages: { t: '2.0.0' },
    });
    expect(devDependencies).toEqual({ 'checkpoint-sim': 'file:checkpoint-sim-0.1.0.tgz', t: '2.0.0' });
    expect(Object.keys(lockfile.packages)).toEqual([
      '', 'node_modules/checkpoint-sim', 'node_modules/a', 'node_modules/b', 'node_modules/c',
      'node_modules/d', 'node_modules/p', 'node_modules/t', 'node_modules/t/node_modules/b',
    ]);
    expect(lockfile.packages['']).toEqual({ name: 'consumer', devDependencies });
    expect(lockfile.packages['node_modules/checkpoint-sim']).toEqual({
      version: '0.1.0', resolved: 'file:checkpoint-sim-0.1.0.tgz', integrity: 'sha512-self', dev: true,
      license: 'Apache-2.0', dependencies: { a: '1.0.0' }, bin: { 'checkpoint-sim': 'dist/cli/main.js' },
    });
    expect(lockfile.packages['node_modules/b']).toEqual({ version: '1.2.0', integrity: 'sha512-b', dev: true });
    expect(lockfile.packages['node_modules/d']).toMatchObject({ optional: true, dev: true });
    expect(lockfile.packages['node_modules/p']).toEqual({ version: '1.0.0', integrity: 'sha512-p', dev: true });
    expect(lockfile.lockfileVersion).toBe(3);
  });

  test('refuses a tool this repository does not lock in exactly that version', () => {
    const deps = (packages: Record<string, string>) => ({ tarball: 'x.tgz', integrity: 'sha512-x', packages });
    expect(() => consumerLockfile(repoLock, 'c', deps({ t: '2.0.1' }))).toThrow(/t@2\.0\.1 is not in this repository's lockfile \(it has 2\.0\.0\)/);
    expect(() => consumerLockfile(repoLock, 'c', deps({ zz: '1.0.0' }))).toThrow(/zz@1\.0\.0 .*it has none/);
    const broken: Lockfile = { ...repoLock, packages: { ...repoLock.packages, 'node_modules/b': undefined as never } };
    expect(() => consumerLockfile(broken, 'c', deps({}))).toThrow(/node_modules\/a needs b, which the lockfile does not hold/);
  });
});
