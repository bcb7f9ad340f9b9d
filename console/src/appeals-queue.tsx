import { appealOutcomes, appealStatusFilters } from '@kernel/requests';
import { useEffect, useState } from 'preact/hooks';
import { type Call, formatDuration, formatTime } from './api';
import {
  type AppealStats,
  ageOf,
  duration,
  PAGE_SIZE,
  type StatusFilter,
  statusLabels,
  statusWord,
} from './appeals-words';
import {
  apiFieldError,
  errorMessage,
  Field,
  type Message,
  Notice,
  Pager,
  TableScroll,
  TimeText,
  useCursorPages,
} from './ui';
import { check } from './validation';

/** The appeals queue: how it is doing (the stats) and a page of appeals with their age and filters. */

/** The queue's numbers (GET /v1/appeals/stats), read again after each decision. */
export const Stats = ({ call, version }: { call: Call; version: number }) => {
  const [stats, setStats] = useState<AppealStats | null>(null);
  const [message, setMessage] = useState<Message>(null);
  useEffect(() => {
    void (async () => {
      const answer = await call('get', '/v1/appeals/stats', {});
      if (answer.status !== 200) {
        setMessage(errorMessage(answer));
        return;
      }
      setMessage(null);
      setStats(answer.body);
    })();
  }, [version]);
  return (
    <>
      <Notice message={message} />
      {stats && (
        <TableScroll label="Appeal numbers">
          <table>
            <caption>
              The queue now, and the decisions of the last {stats.window_days} days (computed{' '}
              {formatTime(stats.computed_at)})
            </caption>
            <thead>
              <tr>
                <th scope="col">Open</th>
                <th scope="col">Oldest open</th>
                <th scope="col">Decided</th>
                {appealOutcomes.map((outcome) => (
                  <th scope="col" key={outcome}>
                    {outcome[0]?.toUpperCase()}
                    {outcome.slice(1)}
                  </th>
                ))}
                <th scope="col">Median time to decision</th>
                <th scope="col">90th percentile</th>
              </tr>
            </thead>
            <tbody>
              <tr>
                <td>{stats.open}</td>
                <td>
                  {stats.oldest_open_at === null || stats.oldest_open_age_seconds === null
                    ? 'none'
                    : `waiting ${formatDuration(stats.oldest_open_age_seconds)}`}
                </td>
                <td>{stats.decided}</td>
                {appealOutcomes.map((outcome) => (
                  <td key={outcome}>{stats.outcomes[outcome]}</td>
                ))}
                <td>{duration(stats.time_to_decision_seconds.median)}</td>
                <td>{duration(stats.time_to_decision_seconds.p90)}</td>
              </tr>
            </tbody>
          </table>
        </TableScroll>
      )}
    </>
  );
};

export interface QueueFilters {
  status: StatusFilter;
  device: string;
  ban: number | undefined;
}

/** A ban id typed in a filter: a whole number the API takes (1 to 2^53 - 1). */
export const parseBanId = (
  text: string,
): { ok: true; value: number | undefined } | { ok: false; message: string } => {
  if (text === '') return { ok: true, value: undefined };
  const value = /^\d{1,16}$/.test(text) ? Number(text) : Number.NaN;
  return Number.isSafeInteger(value) && value >= 1
    ? { ok: true, value }
    : { ok: false, message: 'must be a whole number of at least 1' };
};

/** The queue: filters, and a page of appeals with their age; Open shows one. */
export const Queue = ({
  call,
  version,
  selected,
  onOpen,
}: {
  call: Call;
  version: number;
  selected: string | undefined;
  onOpen: (appealId: string) => void;
}) => {
  const [status, setStatus] = useState<StatusFilter>('open');
  const [deviceId, setDeviceId] = useState('');
  const [banId, setBanId] = useState('');
  const [errors, setErrors] = useState<{ device?: string | undefined; ban?: string | undefined }>({});
  const { page, applied, message, setMessage, busy, first, pager } = useCursorPages(
    (filters: QueueFilters, cursor) =>
      call('get', '/v1/appeals', {
        query: {
          status: filters.status,
          limit: PAGE_SIZE,
          ...(filters.device ? { device_id: filters.device } : {}),
          ...(filters.ban === undefined ? {} : { ban_id: filters.ban }),
          ...(cursor ? { cursor } : {}),
        },
      }),
    { status: 'open', device: '', ban: undefined },
  );
  // Opened, and after each decision: the first page of the filters applied (a decided appeal
  // leaves the open queue).
  useEffect(() => {
    void first();
  }, [version]);

  const search = (e: Event) => {
    e.preventDefault();
    const device = deviceId.trim();
    const ban = parseBanId(banId.trim());
    const deviceProblem = device === '' ? undefined : check('device_id', device);
    const found = {
      device: deviceProblem && `Device ID ${deviceProblem}`,
      ban: ban.ok ? undefined : `Ban ID ${ban.message}`,
    };
    setErrors(found);
    if (found.device || !ban.ok) {
      setMessage({ kind: 'error', text: `${[found.device, found.ban].filter(Boolean).join('. ')}.` });
      return;
    }
    void first({ status, device, ban: ban.value });
  };

  const now = Date.now();
  return (
    <section aria-labelledby="appeal-queue-heading">
      <h3 id="appeal-queue-heading">Queue</h3>
      <form class="filters" noValidate onSubmit={search}>
        <div class="field">
          <label for="appeals-status">Show</label>
          <select
            id="appeals-status"
            value={status}
            onChange={(e) => setStatus((e.currentTarget as HTMLSelectElement).value as StatusFilter)}
          >
            {appealStatusFilters.map((s) => (
              <option key={s} value={s}>
                {statusLabels[s]}
              </option>
            ))}
          </select>
        </div>
        <Field
          id="appeals-device"
          label="Filter by device ID"
          value={deviceId}
          onValue={setDeviceId}
          error={errors.device ?? apiFieldError(message, 'device_id')}
        />
        <Field
          id="appeals-ban"
          label="Filter by ban ID"
          value={banId}
          onValue={setBanId}
          error={errors.ban ?? apiFieldError(message, 'ban_id')}
        />
        <button type="submit" disabled={busy}>
          Show appeals
        </button>
      </form>
      <Notice message={message} />
      {page && (
        <TableScroll label="Appeals table">
          <table>
            <caption>
              Appeals, {statusLabels[applied.status]}
              {applied.device ? `, device ${applied.device}` : ''}
              {applied.ban === undefined ? '' : `, ban ${applied.ban}`} (page {pager.number})
            </caption>
            <thead>
              <tr>
                <th scope="col">Appeal</th>
                <th scope="col">Status</th>
                <th scope="col">Filed</th>
                <th scope="col">Age</th>
                <th scope="col">Device</th>
                <th scope="col">Ban</th>
                <th scope="col">Filed by</th>
                <th scope="col" class="sticky-end">
                  Actions
                </th>
              </tr>
            </thead>
            <tbody>
              {page.items.length === 0 && (
                <tr>
                  <td colSpan={8}>No appeals match.</td>
                </tr>
              )}
              {page.items.map((appeal) => (
                <tr key={appeal.appeal_id} aria-current={appeal.appeal_id === selected ? 'true' : undefined}>
                  <th scope="row">{appeal.appeal_id}</th>
                  <td>
                    <span class="badge">{statusWord(appeal)}</span>
                  </td>
                  <td>
                    <TimeText iso={appeal.created_at} />
                  </td>
                  <td>{ageOf(appeal, now)}</td>
                  <td>{appeal.device_id}</td>
                  <td>{appeal.ban_id}</td>
                  <td>
                    {appeal.filed_by.publisher_id}, game {appeal.filed_by.game_id}
                  </td>
                  <td class="sticky-end">
                    <button
                      type="button"
                      class="small"
                      aria-label={`Open appeal ${appeal.appeal_id}`}
                      onClick={() => onOpen(appeal.appeal_id)}
                    >
                      Open
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      {page && <Pager {...pager} />}
    </section>
  );
};
