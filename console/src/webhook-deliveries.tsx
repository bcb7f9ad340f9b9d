import { useEffect, useState } from 'preact/hooks';
import { type Call, formatTime, type Schemas } from './api';
import { DataTable } from './data-table';
import { Notice, useCursorPages, useFocusOn } from './ui';

/**
 * A webhook's deliveries in the Webhooks view: newest event first, a page at a time, by status;
 * each names the device and the ban its event is about (— for policy and test events).
 */

type Webhook = Schemas['Webhook'];
type DeliveryStatus = Schemas['Delivery']['status'] | 'any';

export const Deliveries = ({ call, hook, version }: { call: Call; hook: Webhook; version: number }) => {
  const heading = useFocusOn<HTMLHeadingElement>(hook.webhook_id);
  const [status, setStatus] = useState<DeliveryStatus>('any');
  const { page, busy, message, first, reload, pager } = useCursorPages(
    (only: DeliveryStatus, cursor) =>
      call('get', '/v1/webhooks/{webhook_id}/deliveries', {
        path: { webhook_id: hook.webhook_id },
        query: { limit: 25, ...(cursor ? { cursor } : {}), ...(only === 'any' ? {} : { status: only }) },
      }),
    status,
  );
  // A test event sent (version) shows at once: the first page again, whatever the filter.
  useEffect(() => {
    void first(status);
  }, [hook.webhook_id, version]);

  return (
    <section aria-labelledby="deliveries-heading" class="panel">
      <h3 id="deliveries-heading" tabIndex={-1} ref={heading}>
        Deliveries of {hook.webhook_id}
      </h3>
      <p class="meta">{hook.url}</p>
      <div class="field">
        <label for="deliveries-status">Show</label>
        <select
          id="deliveries-status"
          value={status}
          disabled={busy}
          onChange={(e) => {
            const only = (e.currentTarget as HTMLSelectElement).value as DeliveryStatus;
            setStatus(only);
            void first(only);
          }}
        >
          <option value="any">every delivery</option>
          <option value="pending">pending: still being tried</option>
          <option value="failed">failed</option>
          <option value="delivered">delivered</option>
        </select>
      </div>
      <Notice message={message} />
      {page && (
        <DataTable
          label="Deliveries table"
          caption={`Deliveries, newest event first (page ${pager.number})`}
          columns={[
            'Event',
            'Type',
            'Device',
            'Ban',
            'Occurred',
            'Status',
            'Attempts',
            'Last answer',
            'Last error',
            'Next attempt',
            'Delivered',
          ]}
          count={page.items.length}
          empty="Nothing sent to it yet."
        >
          {page.items.map((d) => (
            <tr key={d.event_id}>
              <th scope="row">{d.event_id}</th>
              <td>{d.type}</td>
              <td>{d.device_id ?? '—'}</td>
              <td>{d.ban_id ?? '—'}</td>
              <td>{formatTime(d.occurred_at)}</td>
              <td>{d.status}</td>
              <td>{d.attempts}</td>
              <td>{d.last_status ?? '—'}</td>
              <td>{d.last_error ?? '—'}</td>
              <td>{formatTime(d.next_attempt_at)}</td>
              <td>{formatTime(d.delivered_at)}</td>
            </tr>
          ))}
        </DataTable>
      )}
      <div class="pager">
        <button type="button" disabled={busy || !pager.onPrevious} onClick={pager.onPrevious}>
          Previous page
        </button>
        <button type="button" disabled={busy} onClick={() => void reload()}>
          Refresh deliveries
        </button>
        <button type="button" disabled={busy || !pager.onNext} onClick={pager.onNext}>
          Next page
        </button>
      </div>
    </section>
  );
};
