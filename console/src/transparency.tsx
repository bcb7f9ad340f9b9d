import { daysOfPeriod, isReportDay, REPORT_MAX_DAYS, restrictionDimensions } from '@kernel/transparency';
import { useEffect, useState } from 'preact/hooks';
import type { Call, Schemas } from './api';
import { DayBars, LabelledBars, ShareBar } from './transparency-charts';
import { ReportTable, valueWords } from './transparency-table';
import { Field, Notice, ScopeGate, type ScopeKnowledge } from './ui';
import { type AnswerOf, useRead } from './ui-read';

/**
 * The Transparency view (DSA Art. 15 and 24): the publisher's transparency report for a period of
 * UTC days, as `GET /v1/transparency-report` answers it: restrictions by day, by category, by
 * reason, the appeals' outcomes as shares, each moderator's outcomes as shares, and every number in
 * a table. Needs `audit:read` and a key for every game. A person who decided is shown by their email
 * where the people list (`people:manage`) has it, else by their id, as a key is.
 */

const DAY_MS = 86_400_000;
const utcDay = (at: number) => new Date(at).toISOString().slice(0, 10);

/** The last 30 days, today (UTC) included. */
const lastThirtyDays = () => ({ from: utcDay(Date.now() - 29 * DAY_MS), to: utcDay(Date.now()) });

interface Period {
  from: string;
  to: string;
}

/** What is wrong with a period, per field: the rules the API holds too. */
const periodProblems = ({ from, to }: Period) => {
  const errors: Partial<Record<keyof Period, string>> = {};
  if (!isReportDay(from)) errors.from = 'From must be a date';
  if (!isReportDay(to)) errors.to = 'To must be a date';
  if (!errors.from && !errors.to) {
    if (to < from) errors.to = 'To must be the same day as From or later';
    else if (daysOfPeriod(from, to).length > REPORT_MAX_DAYS)
      errors.to = `The period must be at most ${REPORT_MAX_DAYS} days`;
  }
  return errors;
};

type Moderator = Schemas['TransparencyReport']['appeals']['by_moderator'][number]['moderator'];

/** How the page names a moderator: a person's email from the people list, else their id; a key's id. */
export type ModeratorName = (moderator: Moderator) => string;
const moderatorNameFrom =
  (emails: ReadonlyMap<string, string>): ModeratorName =>
  (moderator) =>
    moderator.type === 'user' ? (emails.get(moderator.id) ?? moderator.id) : `key ${moderator.id}`;

const readReport = (call: Call, period: Period) =>
  call('get', '/v1/transparency-report', { query: { from: period.from, to: period.to } });

export const TransparencyView = ({ call, knowledge }: { call: Call; knowledge: ScopeKnowledge }) => {
  const [draft, setDraft] = useState<Period>(lastThirtyDays);
  const [errors, setErrors] = useState<Partial<Record<keyof Period, string>>>({});
  const report = useRead<AnswerOf<typeof readReport>>({ latest: true });
  // People's emails by subject, for naming moderators: only where this session may list people.
  const [emails, setEmails] = useState<ReadonlyMap<string, string>>(new Map());
  useEffect(() => {
    if (knowledge['people:manage'].held === false) return;
    void call('get', '/v1/people', {}).then((answer) => {
      if (answer.ok && answer.status === 200)
        setEmails(new Map(answer.body.items.map((person) => [person.person_id, person.email])));
    });
  }, []);
  const moderatorName = moderatorNameFrom(emails);
  const show = (period: Period) => {
    const problems = periodProblems(period);
    setErrors(problems);
    const problem = Object.values(problems)[0];
    if (problem) {
      report.setMessage({ kind: 'error', text: `${problem}.` });
      return;
    }
    void report.read(() => readReport(call, period));
  };
  useEffect(() => {
    if (knowledge['audit:read'].held !== false) show(draft);
  }, []);
  const set = (name: keyof Period) => (value: string) => setDraft((d) => ({ ...d, [name]: value }));
  const shown = report.value;
  return (
    <section aria-labelledby="transparency-heading" class="panel">
      <h2 id="transparency-heading">Transparency</h2>
      <p>
        What a transparency report under the Digital Services Act (Art. 15 and 24) counts: the bans made, by
        type, scope, ground, category, automated means and reason; the bans revoked; the appeals received and
        decided, by outcome and by moderator, and how long decisions took. Days are UTC; the API answers the
        same as CSV.
      </p>
      <ScopeGate scope="audit:read" known={knowledge} what="The transparency report">
        <form
          class="filters"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            show(draft);
          }}
        >
          <Field
            id="transparency-from"
            label="From (day, UTC)"
            type="date"
            value={draft.from}
            onValue={set('from')}
            error={errors.from}
          />
          <Field
            id="transparency-to"
            label="To (day, UTC, included)"
            type="date"
            value={draft.to}
            onValue={set('to')}
            error={errors.to}
          />
          <button type="submit" disabled={report.busy}>
            Show report
          </button>
        </form>
        <Notice message={report.message} />
        {shown && (
          <>
            <h3>
              {shown.from} to {shown.to}
            </h3>
            <p>
              <strong>{shown.restrictions.total}</strong> restrictions, <strong>{shown.revocations}</strong>{' '}
              revoked; <strong>{shown.appeals.received}</strong> appeals received,{' '}
              <strong>{shown.appeals.decided}</strong> decided.
            </p>
            <DayBars
              id="transparency-by-day"
              title="Restrictions by day"
              unit="restrictions"
              days={shown.by_day.map((d) => ({ day: d.day, count: d.restrictions.total }))}
            />
            <LabelledBars
              id="transparency-by-category"
              title="Restrictions by category"
              empty="no restrictions in the period"
              items={restrictionDimensions.category.map((category) => ({
                label: valueWords('category', category),
                count: shown.restrictions.by_category[category],
              }))}
            />
            <LabelledBars
              id="transparency-by-reason"
              title="Restrictions by reason"
              empty="no restrictions in the period"
              items={Object.entries(shown.restrictions.by_reason).map(([code, count]) => ({
                label: code,
                count,
              }))}
            />
            <ShareBar
              id="transparency-outcomes"
              title="Appeals decided, by outcome"
              empty="no appeal decided in the period"
              parts={[
                { label: 'upheld', count: shown.appeals.upheld, tone: 'upheld' },
                { label: 'overturned', count: shown.appeals.overturned, tone: 'overturned' },
                { label: 'shortened', count: shown.appeals.shortened, tone: 'shortened' },
              ]}
            />
            <section id="transparency-by-moderator" aria-labelledby="transparency-by-moderator-heading">
              <h4 id="transparency-by-moderator-heading">Appeals decided, by moderator</h4>
              {shown.appeals.by_moderator.length === 0 ? (
                <p>No appeal decided in the period.</p>
              ) : (
                shown.appeals.by_moderator.map((row, i) => (
                  <div
                    key={`${row.moderator.type}:${row.moderator.id}`}
                    class="moderator-shares"
                    data-moderator={`${row.moderator.type}:${row.moderator.id}`}
                    data-decided={row.decided}
                  >
                    <ShareBar
                      id={`transparency-moderator-${i}`}
                      title={`Decided by ${moderatorName(row.moderator)}, by outcome`}
                      empty="no appeal decided"
                      parts={[
                        { label: 'upheld', count: row.upheld, tone: 'upheld' },
                        { label: 'overturned', count: row.overturned, tone: 'overturned' },
                        { label: 'shortened', count: row.shortened, tone: 'shortened' },
                      ]}
                    />
                  </div>
                ))
              )}
            </section>
            <ReportTable report={shown} moderatorName={moderatorName} />
          </>
        )}
      </ScopeGate>
    </section>
  );
};
