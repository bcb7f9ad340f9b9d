/**
 * The transparency report (DSA Art. 15 and 24): what it counts, how a period is bounded, how time
 * to decision is rounded and its percentiles taken, and the CSV's layout. The service's rollups
 * and report (lib/domain/transparency.ts), the API's schemas and the console's Transparency page
 * all read this.
 */
import { automatedDecisions, statementCategories, statementGrounds } from './statement-of-reasons';

/** The longest period one report covers, in UTC days (a leap year). */
export const REPORT_MAX_DAYS = 366;

/** A report's day: `YYYY-MM-DD`, UTC. */
export const REPORT_DAY_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

/** Whether a `YYYY-MM-DD` names a real calendar day. */
export const isReportDay = (day: string): boolean =>
  REPORT_DAY_PATTERN.test(day) && new Date(`${day}T00:00:00.000Z`).toISOString().slice(0, 10) === day;

/** Every day from `from` to `to`, both included (UTC). */
export const daysOfPeriod = (from: string, to: string): string[] => {
  const days: string[] = [];
  for (
    let at = Date.parse(`${from}T00:00:00.000Z`);
    at <= Date.parse(`${to}T00:00:00.000Z`);
    at += 86_400_000
  )
    days.push(new Date(at).toISOString().slice(0, 10));
  return days;
};

/** The restrictions' dimensions, each with every value it takes, in the order a report answers them. */
export const restrictionDimensions = {
  type: ['cheat', 'social'],
  scope: ['game', 'publisher', 'global'],
  ground: statementGrounds,
  category: statementCategories,
  automated_detection: ['true', 'false'],
  automated_decision: automatedDecisions,
} as const;
export type RestrictionDimension = keyof typeof restrictionDimensions;
export const restrictionDimensionNames = Object.keys(restrictionDimensions) as RestrictionDimension[];

/** What a report says of appeals: counts, then each outcome. */
export const reportAppealCounts = ['received', 'decided', 'upheld', 'overturned', 'shortened'] as const;
export type ReportAppealCount = (typeof reportAppealCounts)[number];

/** What a report says of each moderator: their decisions, then each outcome (`appeals.by_moderator`). */
export const reportModeratorCounts = ['decided', 'upheld', 'overturned', 'shortened'] as const;
export type ReportModeratorCount = (typeof reportModeratorCounts)[number];

/** Who decided appeals, as a report names them: a person (their subject) or a key (its id). */
export interface ReportModerator {
  type: 'user' | 'key';
  id: string;
}

/** A moderator's row of a report. */
export type ReportModeratorRow = { moderator: ReportModerator } & Record<ReportModeratorCount, number>;

/** The order a report lists moderators in: most decisions first, then by type and id. */
export const compareModeratorRows = (a: ReportModeratorRow, b: ReportModeratorRow): number =>
  b.decided - a.decided ||
  (a.moderator.id < b.moderator.id ? -1 : a.moderator.id > b.moderator.id ? 1 : 0) ||
  (a.moderator.type < b.moderator.type ? -1 : a.moderator.type > b.moderator.type ? 1 : 0);

/** A moderator as one CSV value: `user:<sub>` or `key:<key_id>`. */
export const moderatorValue = (moderator: ReportModerator): string => `${moderator.type}:${moderator.id}`;

/**
 * Time to decision, as the rollups keep it: whole seconds rounded up to three significant digits.
 * Exact below 1,000 seconds (about 17 minutes); beyond, at most 1% above the true time, so a day's
 * decisions fit a few hundred counters however many there are.
 */
export const roundDecisionSeconds = (seconds: number): number => {
  const whole = Math.max(0, Math.ceil(seconds));
  if (whole < 1000) return whole;
  const unit = 10 ** (String(whole).length - 3);
  return Math.ceil(whole / unit) * unit;
};

/**
 * The nearest-rank percentile (`p` in 1-100) of values given as value → how many: the smallest value
 * with at least p% of all at or below it; null when there are none.
 */
export const percentileOfCounts = (counts: ReadonlyMap<number, number>, p: number): number | null => {
  const total = [...counts.values()].reduce((sum, n) => sum + n, 0);
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil((p / 100) * total));
  let seen = 0;
  for (const value of [...counts.keys()].sort((a, b) => a - b)) {
    seen += counts.get(value) ?? 0;
    if (seen >= rank) return value;
  }
  return null;
};

/**
 * The CSV (`format=csv`): a header row, then one row per day and (dimension, value), the days in
 * order, then the same rows for the whole period with `day` = `total`. Dimensions: `restrictions`
 * (value `total`), each restriction dimension with each of its values, `revocations` (`total`),
 * `appeals` (received, decided, upheld, overturned, shortened) and `time_to_decision_seconds`
 * (`median`, `p90`; `count` empty without decisions); then `reason` (each reason code with a count,
 * in code order) and `moderator_decided`, `moderator_upheld`, `moderator_overturned`,
 * `moderator_shortened` (value `user:<sub>` or `key:<key_id>`, moderators in the report's order).
 * A day lists only the reasons and moderators it has; the period lists all of its own.
 */
export const REPORT_CSV_HEADER = ['day', 'dimension', 'value', 'count'] as const;
export const REPORT_CSV_TOTAL_DAY = 'total';
