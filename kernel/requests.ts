/**
 * The plain values of the request schemas (lib/model/requests.ts) that the console reads too: a
 * batch's size limit and the appeals' outcomes and status filters. The schemas are zod and stay in
 * lib/model, which re-exports these, so the API and the page cannot disagree on them.
 */

export const BATCH_MAX_DEVICES = 100;

export const appealOutcomes = ['upheld', 'overturned', 'shortened'] as const;
export type AppealOutcome = (typeof appealOutcomes)[number];

export const appealStatusFilters = ['open', 'decided', 'all'] as const;
