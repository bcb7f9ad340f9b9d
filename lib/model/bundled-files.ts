/**
 * A data file a function reads at run time rather than imports, so it stays out of the bundle and
 * the cold start: the stack copies `source` (relative to the repository root) beside the
 * function's bundle as `name` (infra/stack/service-function.ts); the sources read it where it is.
 */
export interface BundledFile {
  readonly name: string;
  readonly source: string;
  /** The same file as a module specifier, for the sources. */
  readonly module: string;
}

/**
 * Unicode's confusables.txt (the prototypes of Unicode TS #39, version 13.0) as one JSON object,
 * character to prototype, from the unhomoglyph package (its own function is not used: it builds a
 * 6,000-way regex). lib/domain/display-names.ts reads it.
 */
export const CONFUSABLES: BundledFile = {
  name: 'confusables.json',
  source: 'node_modules/unhomoglyph/data.json',
  module: 'unhomoglyph/data.json',
};
