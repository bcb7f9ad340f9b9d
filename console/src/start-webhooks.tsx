import type { AnyAnswer, Call, Schemas } from './api';
import { DataTable } from './data-table';
import { type Found, found, PanelRead } from './start-panel';
import { TimeText } from './ui';
import { useReadEach } from './ui-read';

/** The webhooks whose deliveries are failing: being retried, or given up (`keys:manage`). */

type Webhook = Schemas['Webhook'];
type Delivery = Schemas['Delivery'];

/** Each webhook's newest failed and newest pending deliveries: one page of each. */
const DELIVERY_PAGE = 50;

interface Failing {
  hook: Webhook;
  /** Pending deliveries already tried and refused, on the first page of pending ones. */
  retrying: number;
  retryingMore: boolean;
  /** Deliveries given up (after a day of retries), on their first page. */
  failed: number;
  failedMore: boolean;
  /** The most recent failed attempt among them. */
  latest: Delivery | null;
}

const originOf = (url: string) => {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
};

const newestAttempt = (deliveries: readonly Delivery[]): Delivery | null =>
  deliveries.reduce<Delivery | null>(
    (newest, d) =>
      newest === null || (d.last_attempt_at ?? '') > (newest.last_attempt_at ?? '') ? d : newest,
    null,
  );

const readFailing = async (call: Call): Promise<Found<{ hooks: number; failing: Failing[] }> | AnyAnswer> => {
  const listed = await call('get', '/v1/webhooks', {});
  if (listed.status !== 200) return listed;
  const failing: Failing[] = [];
  // One webhook at a time: at most 10, two reads each.
  for (const hook of listed.body.items) {
    const page = (status: 'failed' | 'pending') =>
      call('get', '/v1/webhooks/{webhook_id}/deliveries', {
        path: { webhook_id: hook.webhook_id },
        query: { status, limit: DELIVERY_PAGE },
      });
    const [failed, pending] = await Promise.all([page('failed'), page('pending')]);
    if (failed.status !== 200) return failed;
    if (pending.status !== 200) return pending;
    const retrying = pending.body.items.filter((d) => d.attempts > 0);
    if (failed.body.items.length === 0 && retrying.length === 0) continue;
    failing.push({
      hook,
      retrying: retrying.length,
      retryingMore: pending.body.next_cursor !== null,
      failed: failed.body.items.length,
      failedMore: failed.body.next_cursor !== null,
      latest: newestAttempt([...retrying, ...failed.body.items]),
    });
  }
  return found({ hooks: listed.body.items.length, failing });
};

/** A count read from one page: "50+" when the page was not the last. */
const atLeast = (count: number, more: boolean) => `${count}${more ? '+' : ''}`;

const FailingTable = ({ hooks, failing }: { hooks: number; failing: readonly Failing[] }) => (
  <DataTable
    label="Failing webhooks table"
    caption={`Webhooks with deliveries being retried or given up (${failing.length} of ${hooks}; the newest ${DELIVERY_PAGE} of each kind read)`}
    columns={['Webhook', 'Sends to', 'Being retried', 'Given up', 'Latest error', 'Last attempt']}
  >
    {failing.map((f) => (
      <tr key={f.hook.webhook_id}>
        <th scope="row">{f.hook.webhook_id}</th>
        <td>{originOf(f.hook.url)}</td>
        <td>{atLeast(f.retrying, f.retryingMore)}</td>
        <td>{atLeast(f.failed, f.failedMore)}</td>
        <td>{f.latest?.last_error ?? '—'}</td>
        <td>{f.latest?.last_attempt_at ? <TimeText iso={f.latest.last_attempt_at} /> : '—'}</td>
      </tr>
    ))}
  </DataTable>
);

export const FailingWebhooks = ({ call, version }: { call: Call; version: number }) => {
  const read = useReadEach(() => readFailing(call), version);
  return (
    <PanelRead read={read} what="the webhooks' deliveries">
      {({ hooks, failing }) =>
        hooks === 0 ? (
          <p>Your publisher has no webhooks.</p>
        ) : failing.length === 0 ? (
          <p>
            None of your {hooks} {hooks === 1 ? 'webhook is' : 'webhooks is'} failing: no delivery is being
            retried or was given up.
          </p>
        ) : (
          <FailingTable hooks={hooks} failing={failing} />
        )
      }
    </PanelRead>
  );
};
