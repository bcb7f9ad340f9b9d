import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { CONFUSABLES } from '../model/bundled-files';

/**
 * Unicode's prototypes, read on the first name set rather than imported, so their 100 KB weigh on
 * no bundle and no cold start: beside the bundle when deployed (lib/model/bundled-files.ts), in the
 * package when run from the sources.
 */
let prototypes: Readonly<Record<string, string>> | undefined;
const confusables = () => {
  if (prototypes === undefined) {
    const beside = fileURLToPath(new URL(`./${CONFUSABLES.name}`, import.meta.url));
    const file = existsSync(beside) ? beside : createRequire(import.meta.url).resolve(CONFUSABLES.module);
    prototypes = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
  }
  return prototypes;
};

const DEFAULT_IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;

/**
 * A display name's confusable skeleton (Unicode TS #39, section 4): NFD, default-ignorable code
 * points removed, each character replaced by its prototype, NFD again. Two names with one
 * skeleton look alike ("Dev Games" and "Dev Gаmes" with a Cyrillic а); the directory lets one
 * publisher hold each skeleton (lib/domain/publishers.ts).
 */
export const skeletonOf = (name: string): string => {
  const table = confusables();
  const stripped = name.normalize('NFD').replace(DEFAULT_IGNORABLE, '');
  let mapped = '';
  for (const char of stripped) mapped += table[char] ?? char;
  return mapped.normalize('NFD');
};

/** The key a skeleton is held under: its SHA-256, so any name gives a short key of one alphabet. */
export const skeletonDigest = (name: string) =>
  createHash('sha256').update(skeletonOf(name)).digest('base64url');
