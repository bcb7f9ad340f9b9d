import type { AppealOutcome, appealStatusFilters } from '@kernel/requests';
import { formatDuration, type Schemas } from './api';

/** The Appeals view's words and numbers: its types, page sizes, labels, and an appeal's age. */

export type Appeal = Schemas['Appeal'];
export type AppealStats = Schemas['AppealStats'];
export type StatusFilter = (typeof appealStatusFilters)[number];
export type DecisionRequest = Schemas['AppealDecisionRequest'];

export const PAGE_SIZE = 25;
/** How often the queue is read again, and an open appeal's claim looked at (renewed, or read). */
export const QUEUE_REFRESH_MS = 30_000;
/** The device's history beside an appeal: its newest bans, one page of the listing. */
export const HISTORY_LIMIT = 200;

/** Each outcome, as the form offers it: what it does to the ban (lib/domain/appeals.ts). */
export const outcomeHelp: Record<AppealOutcome, string> = {
  upheld: 'The ban stays as it is.',
  overturned: 'The ban is revoked at once, for every publisher and game that sees it.',
  shortened: 'The ban stays, but ends earlier: at the new expiry.',
};

export const statusLabels: Record<StatusFilter, string> = {
  open: 'open: the queue, oldest first',
  decided: 'decided: newest decision first',
  all: 'all: open, then decided',
};

export const secondsBetween = (from: string, to: string | number) =>
  ((typeof to === 'number' ? to : Date.parse(to)) - Date.parse(from)) / 1000;

/** How long an open appeal has waited, or how long a decided one took. */
export const ageOf = (appeal: Appeal, now = Date.now()) =>
  appeal.decision
    ? `decided after ${formatDuration(secondsBetween(appeal.created_at, appeal.decision.decided_at))}`
    : `waiting ${formatDuration(secondsBetween(appeal.created_at, now))}`;

export const statusWord = (appeal: Appeal) => appeal.decision?.outcome ?? appeal.status;

export const duration = (seconds: number | null) => (seconds === null ? 'none yet' : formatDuration(seconds));
