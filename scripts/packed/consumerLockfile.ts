/**
 * A package-lock.json for a temporary consumer project, cut out of this repository's own lockfile,
 * so that `npm install --prefer-offline` in that project is served from the npm cache `npm ci`
 * filled and installs exactly the versions this repository tests with.
 *
 * Why a lockfile: without one, npm resolves every range afresh from *full* registry documents
 * (npm 11's arborist asks for full metadata when it builds a tree), while `npm ci` here cached only
 * the abbreviated ones and the tarballs; so a lockfile-less install goes to the network for every
 * package and may pick newer versions than ours. With a lockfile npm only needs the tarballs (and
 * abbreviated documents where the lockfile has no `resolved`, as ours has none), all cached.
 *
 * How: the consumer's tree is this repository's tree, with checkpoint-sim itself moved from the
 * root to `node_modules/checkpoint-sim`, restricted to what the consumer's dependencies reach.
 * Node's resolution walks up from a package's folder, and every kept package keeps its folder, so
 * each resolves its dependencies to the very entries it resolves to here.
 */

/** One entry of a lockfile v3 `packages` map (only the fields read here are typed). */
export interface LockEntry {
  readonly version?: string;
  readonly resolved?: string;
  readonly integrity?: string;
  readonly dependencies?: Readonly<Record<string, string>>;
  readonly optionalDependencies?: Readonly<Record<string, string>>;
  readonly peerDependencies?: Readonly<Record<string, string>>;
  readonly peerDependenciesMeta?: Readonly<Record<string, { readonly optional?: boolean }>>;
  readonly [field: string]: unknown;
}

/** A lockfile v3 (npm 7 and later). */
export interface Lockfile {
  readonly name?: string;
  readonly lockfileVersion: number;
  readonly packages: Readonly<Record<string, LockEntry>>;
  readonly [field: string]: unknown;
}

/** What the consumer depends on, all as devDependencies (as a user's test tools would be). */
export interface ConsumerDependencies {
  /** The packed tarball's file name, relative to the consumer project's folder. */
  readonly tarball: string;
  /** The tarball's `sha512-...` integrity. */
  readonly integrity: string;
  /** Other packages of this repository's lockfile, by name, with the exact version wanted. */
  readonly packages: Readonly<Record<string, string>>;
}

/**
 * The consumer's package.json `devDependencies` and package-lock.json, from `repoLock` (this
 * repository's lockfile, whose root package is checkpoint-sim).
 * @throws Error when a wanted package is not at the root of `repoLock` in exactly that version,
 *   or `repoLock` is not lockfile v3 of checkpoint-sim.
 */
export function consumerLockfile(
  repoLock: Lockfile, consumerName: string, deps: ConsumerDependencies,
): { devDependencies: Record<string, string>; lockfile: Lockfile } {
  const root = repoLock.packages[''];
  if (repoLock.lockfileVersion < 2 || root === undefined || root['name'] !== 'checkpoint-sim') {
    throw new Error('consumerLockfile: expected the lockfile (v2 or v3) of checkpoint-sim');
  }
  for (const [name, version] of Object.entries(deps.packages)) {
    const entry = repoLock.packages[`node_modules/${name}`];
    if (entry?.version !== version) {
      throw new Error(`consumerLockfile: ${name}@${version} is not in this repository's lockfile (it has ${entry?.version ?? 'none'})`);
    }
  }
  const self = 'node_modules/checkpoint-sim';
  const devDependencies: Record<string, string> = { 'checkpoint-sim': `file:${deps.tarball}`, ...deps.packages };
  // Every entry the consumer's dependencies reach, and those reached through required edges
  // only (the rest are optional there). The repository's root becomes `self`.
  const reached = new Set<string>();
  const required = new Set<string>();
  const visit = (from: string, viaOptional: boolean): void => {
    const key = from === '' ? self : from;
    if (required.has(key) || (viaOptional && reached.has(key))) return;
    reached.add(key);
    if (!viaOptional) required.add(key);
    const entry = repoLock.packages[from];
    if (entry === undefined) throw new Error(`consumerLockfile: no lockfile entry "${from}"`);
    for (const [name, optional] of edges(entry, from === '')) {
      const at = resolve(repoLock, from, name);
      if (at === undefined) {
        if (optional) continue;
        throw new Error(`consumerLockfile: ${from || 'checkpoint-sim'} needs ${name}, which the lockfile does not hold`);
      }
      visit(at, viaOptional || optional);
    }
  };
  visit('', false);
  for (const name of Object.keys(deps.packages)) visit(`node_modules/${name}`, false);

  const packages: Record<string, LockEntry> = {
    '': { name: consumerName, devDependencies },
    [self]: {
      version: String(root.version), resolved: `file:${deps.tarball}`, integrity: deps.integrity,
      dev: true, ...pick(root, ['license', 'dependencies', 'bin', 'engines']),
    },
  };
  for (const key of [...reached].filter((k) => k !== self).sort()) {
    const { dev: _dev, devOptional: _devOptional, optional: _optional, peer: _peer, ...rest } = repoLock.packages[key] as LockEntry;
    packages[key] = { ...rest, dev: true, ...(required.has(key) ? {} : { optional: true }) };
  }
  return { devDependencies, lockfile: { name: consumerName, lockfileVersion: 3, requires: true, packages } };
}

/** The dependency edges npm installs: dependencies, optional ones, and non-optional peers. */
function edges(entry: LockEntry, isRoot: boolean): Array<[name: string, optional: boolean]> {
  const out: Array<[string, boolean]> = Object.keys(entry.dependencies ?? {}).map((n) => [n, false]);
  for (const n of Object.keys(entry.optionalDependencies ?? {})) out.push([n, true]);
  if (!isRoot) {
    for (const n of Object.keys(entry.peerDependencies ?? {})) {
      if (entry.peerDependenciesMeta?.[n]?.optional !== true) out.push([n, false]);
    }
  }
  return out;
}

/** Node's resolution of `name` from the package at `from`: the nearest `node_modules/name` up. */
function resolve(lock: Lockfile, from: string, name: string): string | undefined {
  let dir = from;
  for (;;) {
    const candidate = dir === '' ? `node_modules/${name}` : `${dir}/node_modules/${name}`;
    if (lock.packages[candidate] !== undefined) return candidate;
    if (dir === '') return undefined;
    const up = dir.lastIndexOf('/node_modules/');
    dir = up < 0 ? '' : dir.slice(0, up);
  }
}

function pick(entry: LockEntry, fields: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(fields.filter((f) => entry[f] !== undefined).map((f) => [f, entry[f]]));
}
