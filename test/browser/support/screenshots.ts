/** The screenshots docs/console.md shows, copied from a run by UPDATE_SCREENSHOTS=1. */
export const CURATED_SCREENSHOTS: readonly string[] = [];
