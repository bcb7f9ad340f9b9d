import { formatTime, type Schemas } from './api';
import { DataTable } from './data-table';
import { TimeText } from './ui';

/** The Webhooks view's table: each webhook with its health, and its actions. */

type Webhook = Schemas['Webhook'];

/** A webhook's health in words: its latest attempt (when, and how as a badge) and its failures in 24 h. */
const Health = ({ health }: { health: Webhook['health'] }) => (
  <div class="health">
    {health.last_attempt_at === null || health.last_outcome === null ? (
      <span>No attempt yet</span>
    ) : (
      <span>
        <span class={`badge badge-${health.last_outcome}`}>{health.last_outcome}</span>{' '}
        <TimeText iso={health.last_attempt_at} />
        {health.last_outcome === 'failed' && health.last_error && <> — {health.last_error}</>}
      </span>
    )}
    <br />
    <span>
      {health.failures_24h === 1 ? '1 failed attempt' : `${health.failures_24h} failed attempts`} in 24 h
    </span>
  </div>
);

export const WebhooksTable = ({
  hooks,
  busy,
  onTest,
  onShow,
  onDelete,
}: {
  hooks: Webhook[];
  busy: boolean;
  onTest: (hook: Webhook) => void;
  onShow: (hook: Webhook) => void;
  onDelete: (hook: Webhook) => void;
}) => (
  <DataTable
    label="Webhooks table"
    caption={`Webhooks of your publisher (${hooks.length} of at most 10)`}
    columns={['Webhook', 'URL', 'Events', 'Games', 'Created', 'Health']}
    actions
    count={hooks.length}
    empty="No webhooks yet."
  >
    {hooks.map((hook) => (
      <tr key={hook.webhook_id}>
        <th scope="row">{hook.webhook_id}</th>
        <td>{hook.url}</td>
        <td>{hook.events.join(' ')}</td>
        <td>{hook.games === null ? 'every game' : hook.games.join(', ')}</td>
        <td>{formatTime(hook.created_at)}</td>
        <td>
          <Health health={hook.health} />
        </td>
        <td class="sticky-end">
          <div class="actions">
            <button
              type="button"
              class="small"
              aria-label={`Send a test event to ${hook.webhook_id}`}
              disabled={busy}
              onClick={() => onTest(hook)}
            >
              Send test event
            </button>
            <button
              type="button"
              class="small"
              aria-label={`Show deliveries of ${hook.webhook_id}`}
              onClick={() => onShow(hook)}
            >
              Deliveries
            </button>
            <button
              type="button"
              class="small"
              aria-label={`Delete webhook ${hook.webhook_id}`}
              disabled={busy}
              onClick={() => onDelete(hook)}
            >
              Delete
            </button>
          </div>
        </td>
      </tr>
    ))}
  </DataTable>
);
