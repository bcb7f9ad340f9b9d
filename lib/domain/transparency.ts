import {
  compareModeratorRows,
  daysOfPeriod,
  moderatorValue,
  percentileOfCounts,
  REPORT_CSV_HEADER,
  REPORT_CSV_TOTAL_DAY,
  REPORT_MAX_DAYS,
  type ReportModeratorRow,
  type RestrictionDimension,
  reportAppealCounts,
  reportModeratorCounts,
  restrictionDimensionNames,
  restrictionDimensions,
} from '@kernel/transparency';
import * as clock from '../clock';
import type { TransparencyReportQuery } from '../model/requests';
import type { ReportCounts, TransparencyReport } from '../model/responses';
import { itemsBetween } from '../storage/key-ranges';
import { REPORT_DAY_PREFIX, reportDayKey, reportPartition } from '../storage/keys';
import { InvalidInputError } from './errors';

/**
 * The transparency report (`GET /v1/transparency-report`, DSA Art. 15 and 24): a period's
 * restrictions by each dimension, revocations and appeals, as JSON or CSV. Read from the daily
 * rollups the dispatcher keeps (lib/domain/transparency-rollups.ts): one Query of at most
 * REPORT_MAX_DAYS items, never a read of the bans. docs/data-model.md#the-transparency-report.
 */

type Item = Record<string, unknown>;
const numberOf = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

/** A day item's attribute names (transparency-rollups.ts writes them; kept here apart from its imports). */
const DECISION_TIME = /^t_(\d+)$/;
const restrictionAttribute = (dimension: string, value: string) => `${dimension}_${value}`;
const REASON = /^reason_(.+)$/;
const DECIDER = /^decider_(user|key):(.+)_(upheld|overturned|shortened)$/;

const DAY_MS = 86_400_000;

/** The period asked for: in order, and at most REPORT_MAX_DAYS days. */
const checkPeriod = (from: string, to: string) => {
  if (to < from) throw new InvalidInputError('to', 'before_from', 'must be the same day as from or later');
  const days = (Date.parse(`${to}T00:00:00.000Z`) - Date.parse(`${from}T00:00:00.000Z`)) / DAY_MS + 1;
  if (days > REPORT_MAX_DAYS)
    throw new InvalidInputError(
      'to',
      'too_big',
      `must be at most ${REPORT_MAX_DAYS} days after from, both included`,
    );
};

/** The rollup items of the period's days, by day: one Query (more pages only past 1 MB). */
const readRollups = async (publisherId: string, from: string, to: string) => {
  const items = await itemsBetween(
    reportPartition(publisherId),
    reportDayKey(publisherId, from).sk,
    reportDayKey(publisherId, to).sk,
  );
  return new Map(items.map((item) => [String(item.sk).slice(REPORT_DAY_PREFIX.length), item as Item]));
};

/** One item's decision times: rounded seconds → how many decisions took them. */
const decisionTimesOf = (item: Item | undefined) => {
  const times = new Map<number, number>();
  for (const [name, value] of Object.entries(item ?? {})) {
    const match = DECISION_TIME.exec(name);
    if (match) times.set(Number(match[1]), (times.get(Number(match[1])) ?? 0) + numberOf(value));
  }
  return times;
};

const byDimension = (item: Item | undefined, dimension: RestrictionDimension) =>
  Object.fromEntries(
    restrictionDimensions[dimension].map((value) => [
      value,
      numberOf(item?.[restrictionAttribute(dimension, value)]),
    ]),
  );

/** Restrictions by reason code: the codes counted, in code order. */
const byReasonOf = (item: Item | undefined): Record<string, number> => {
  const reasons: [string, number][] = [];
  for (const [name, value] of Object.entries(item ?? {})) {
    const match = REASON.exec(name);
    if (match && numberOf(value) > 0) reasons.push([match[1] as string, numberOf(value)]);
  }
  return Object.fromEntries(reasons.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
};

/** Decisions by moderator and outcome, in the report's order (compareModeratorRows). */
const byModeratorOf = (item: Item | undefined): ReportModeratorRow[] => {
  const rows = new Map<string, ReportModeratorRow>();
  for (const [name, value] of Object.entries(item ?? {})) {
    const match = DECIDER.exec(name);
    if (!match || numberOf(value) <= 0) continue;
    const [, type, id, outcome] = match as unknown as [string, 'user' | 'key', string, 'upheld'];
    const key = `${type}:${id}`;
    const row =
      rows.get(key) ??
      ({
        moderator: { type, id },
        ...Object.fromEntries(reportModeratorCounts.map((n) => [n, 0])),
      } as ReportModeratorRow);
    row[outcome] += numberOf(value);
    row.decided += numberOf(value);
    rows.set(key, row);
  }
  return [...rows.values()].sort(compareModeratorRows);
};

/** The counts of one item (a day), or of the sum of several, with their decision times. */
const countsOf = (item: Item | undefined, times: ReadonlyMap<number, number>): ReportCounts => {
  const appeals = Object.fromEntries(
    reportAppealCounts.map((name) => [name, numberOf(item?.[`appeals_${name}`])]),
  ) as Record<(typeof reportAppealCounts)[number], number>;
  return {
    restrictions: {
      total: numberOf(item?.restrictions),
      by_type: byDimension(item, 'type'),
      by_scope: byDimension(item, 'scope'),
      by_ground: byDimension(item, 'ground'),
      by_category: byDimension(item, 'category'),
      by_automated_detection: byDimension(item, 'automated_detection'),
      by_automated_decision: byDimension(item, 'automated_decision'),
      by_reason: byReasonOf(item),
    } as ReportCounts['restrictions'],
    revocations: numberOf(item?.revocations),
    appeals: {
      ...appeals,
      median_seconds_to_decision: percentileOfCounts(times, 50),
      p90_seconds_to_decision: percentileOfCounts(times, 90),
      by_moderator: byModeratorOf(item),
    },
  };
};

/** The sum of items' counters (numbers only; the marks are not counters). */
const sumItems = (items: Iterable<Item>): Item => {
  const sum: Record<string, number> = {};
  for (const item of items)
    for (const [name, value] of Object.entries(item))
      if (typeof value === 'number' && !name.startsWith('m_')) sum[name] = (sum[name] ?? 0) + value;
  return sum;
};

export const transparencyReport = async (
  publisherId: string,
  query: TransparencyReportQuery,
): Promise<TransparencyReport> => {
  checkPeriod(query.from, query.to);
  const rollups = await readRollups(publisherId, query.from, query.to);
  const days = daysOfPeriod(query.from, query.to);
  const total = sumItems(rollups.values());
  return {
    publisher_id: publisherId,
    from: query.from,
    to: query.to,
    days: days.length,
    ...countsOf(total, decisionTimesOf(total)),
    by_day: days.map((day) => {
      const item = rollups.get(day);
      return { day, ...countsOf(item, decisionTimesOf(item)) };
    }),
    computed_at: new Date(clock.now()).toISOString(),
  };
};

/** A CSV field: quoted when it holds a comma, a quote or a line break (RFC 4180). */
const field = (value: string | number | null) => {
  const text = value === null ? '' : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
};

/** The rows of one day's (or the period's) counts, in the CSV's layout (kernel/transparency.ts). */
const rowsOf = (day: string, counts: ReportCounts): (string | number | null)[][] => {
  const rows: (string | number | null)[][] = [[day, 'restrictions', 'total', counts.restrictions.total]];
  for (const dimension of restrictionDimensionNames) {
    const values = counts.restrictions[`by_${dimension}`] as Record<string, number>;
    for (const value of restrictionDimensions[dimension])
      rows.push([day, dimension, value, values[value] ?? 0]);
  }
  rows.push([day, 'revocations', 'total', counts.revocations]);
  for (const name of reportAppealCounts) rows.push([day, 'appeals', name, counts.appeals[name]]);
  rows.push([day, 'time_to_decision_seconds', 'median', counts.appeals.median_seconds_to_decision]);
  rows.push([day, 'time_to_decision_seconds', 'p90', counts.appeals.p90_seconds_to_decision]);
  for (const [code, n] of Object.entries(counts.restrictions.by_reason)) rows.push([day, 'reason', code, n]);
  for (const row of counts.appeals.by_moderator)
    for (const name of reportModeratorCounts)
      rows.push([day, `moderator_${name}`, moderatorValue(row.moderator), row[name]]);
  return rows;
};

/** The report as CSV: a header row, each day's rows in order, then the period's (`day` = `total`). */
export const reportCsv = (report: TransparencyReport): string => {
  const { by_day, publisher_id: _p, from: _f, to: _t, days: _d, computed_at: _g, ...total } = report;
  const rows = [
    [...REPORT_CSV_HEADER],
    ...by_day.flatMap(({ day, ...counts }) => rowsOf(day, counts)),
    ...rowsOf(REPORT_CSV_TOTAL_DAY, total),
  ];
  return `${rows.map((row) => row.map(field).join(',')).join('\r\n')}\r\n`;
};
