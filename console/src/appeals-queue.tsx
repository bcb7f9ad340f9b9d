import { appealOutcomes, appealStatusFilters } from '@kernel/requests';
import { useEffect, useRef } from 'preact/hooks';
import { type Call, formatDuration, formatTime } from './api';
import { heldByText } from './appeals-claim';
import {
  type Appeal,
  ageOf,
  duration,
  PAGE_SIZE,
  QUEUE_REFRESH_MS,
  type StatusFilter,
  statusLabels,
  statusWord,
} from './appeals-words';
import { DataTable } from './data-table';
import { Field, Notice, Pager, TimeText, useCursorPages } from './ui';
import { useReadEach } from './ui-read';
import { useForm } from './use-form';
import { check } from './validation';

/** The appeals queue: how it is doing (the stats) and a page of appeals with their age and filters. */

/** The queue's numbers (GET /v1/appeals/stats), read again after each decision. */
export const Stats = ({ call, version }: { call: Call; version: number }) => {
  // A refusal leaves the numbers read before.
  const { value: stats, message } = useReadEach(() => call('get', '/v1/appeals/stats', {}), version, {
    keep: true,
  });
  return (
    <>
      <Notice message={message} />
      {stats && (
        <DataTable
          label="Appeal numbers"
          caption={`The queue now, and the decisions of the last ${stats.window_days} days (computed ${formatTime(stats.computed_at)})`}
          columns={[
            'Open',
            'Oldest open',
            'Decided',
            ...appealOutcomes.map((outcome) => `${outcome[0]?.toUpperCase()}${outcome.slice(1)}`),
            'Median time to decision',
            '90th percentile',
          ]}
        >
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
        </DataTable>
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

/** A page of appeals, each with its age and Open; the one open is marked current. */
const AppealsTable = ({
  appeals,
  caption,
  selected,
  onOpen,
}: {
  appeals: readonly Appeal[];
  caption: string;
  selected: string | undefined;
  onOpen: (appealId: string) => void;
}) => {
  const now = Date.now();
  return (
    <DataTable
      label="Appeals table"
      caption={caption}
      columns={['Appeal', 'Status', 'Held by', 'Filed', 'Age', 'Device', 'Ban', 'Filed by']}
      actions
      count={appeals.length}
      empty="No appeals match."
    >
      {appeals.map((appeal) => (
        <tr key={appeal.appeal_id} aria-current={appeal.appeal_id === selected ? 'true' : undefined}>
          <th scope="row">{appeal.appeal_id}</th>
          <td>
            <span class="badge">{statusWord(appeal)}</span>
          </td>
          <td>{heldByText(appeal)}</td>
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
    </DataTable>
  );
};

/** The queue: filters, and a page of appeals with their age; Open shows one. */
export const Queue = ({
  call,
  version,
  changes,
  selected,
  onOpen,
}: {
  call: Call;
  version: number;
  /** Bumped when a claim changed here: the page shown is read again. */
  changes: number;
  selected: string | undefined;
  onOpen: (appealId: string) => void;
}) => {
  const { page, applied, message, request, busy, first, reload, pager } = useCursorPages(
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
  const form = useForm({ status: 'open' as StatusFilter, device: '', ban: '' }, request);
  const { status, device, ban } = form.values;
  // Opened, and after each decision: the first page of the filters applied (a decided appeal
  // leaves the open queue).
  useEffect(() => {
    void first();
  }, [version]);
  // What the rest of the team did meanwhile (claims, decisions): the page shown, read again.
  useEffect(() => {
    if (changes > 0) void reload();
  }, [changes]);
  const latestReload = useRef(reload);
  latestReload.current = reload;
  useEffect(() => {
    const timer = setInterval(() => void latestReload.current(), QUEUE_REFRESH_MS);
    return () => clearInterval(timer);
  }, []);

  const search = (e: Event) => {
    e.preventDefault();
    const deviceId = device.trim();
    const banId = parseBanId(ban.trim());
    const deviceProblem = deviceId === '' ? undefined : check('device_id', deviceId);
    const found = {
      device: deviceProblem && `Device ID ${deviceProblem}`,
      ban: banId.ok ? undefined : `Ban ID ${banId.message}`,
    };
    const refusal = `${[found.device, found.ban].filter(Boolean).join('. ')}.`;
    if (!form.accept(found, refusal) || !banId.ok) return;
    void first({ status, device: deviceId, ban: banId.value });
  };

  return (
    <section aria-labelledby="appeal-queue-heading">
      <h3 id="appeal-queue-heading">Queue</h3>
      <form class="filters" noValidate onSubmit={search}>
        <div class="field">
          <label for="appeals-status">Show</label>
          <select
            id="appeals-status"
            value={status}
            onChange={(e) => form.set('status')((e.currentTarget as HTMLSelectElement).value as StatusFilter)}
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
          value={device}
          onValue={form.set('device')}
          error={form.error('device', 'device_id')}
        />
        <Field
          id="appeals-ban"
          label="Filter by ban ID"
          value={ban}
          onValue={form.set('ban')}
          error={form.error('ban', 'ban_id')}
        />
        <button type="submit" disabled={busy}>
          Show appeals
        </button>
      </form>
      <Notice message={message} />
      {page && (
        <AppealsTable
          appeals={page.items}
          caption={`Appeals, ${statusLabels[applied.status]}${applied.device ? `, device ${applied.device}` : ''}${
            applied.ban === undefined ? '' : `, ban ${applied.ban}`
          } (page ${pager.number})`}
          selected={selected}
          onOpen={onOpen}
        />
      )}
      {page && <Pager {...pager} />}
    </section>
  );
};
