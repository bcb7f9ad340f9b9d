import { useEffect, useState } from 'preact/hooks';
import { type Call, formatTime, type Schemas } from './api';
import { OnceSecret } from './secret';
import {
  ChoiceList,
  ConfirmStep,
  errorMessage,
  Field,
  type Message,
  Notice,
  refocus,
  type ScopeKnowledge,
  TableScroll,
  TimeText,
  useBusy,
  useFocusOn,
} from './ui';
import { useForm } from './use-form';
import { useRequest } from './use-request';
import { parseGames } from './validation';

/**
 * The Webhooks view: the publisher's webhooks with their health, adding one (its secret shown
 * once), deleting, sending a test event, deliveries.
 */

type Webhook = Schemas['Webhook'];
type NewWebhook = Schemas['NewWebhook'];
type EventType = Webhook['events'][number];
const eventTypes = [
  'ban.created',
  'ban.revoked',
  'ban.erased',
  'ban.updated',
  'policy.updated',
  'appeal.created',
  'appeal.decided',
] as const satisfies readonly EventType[];
const everyEvent: Exclude<EventType, (typeof eventTypes)[number]> extends never ? true : never = true;
void everyEvent;

const AddWebhookForm = ({ call, onAdded }: { call: Call; onAdded: (hook: NewWebhook) => void }) => {
  const request = useRequest();
  const { busy, message } = request;
  const form = useForm({ url: '', events: [...eventTypes] as EventType[], games: '' }, request);
  const { url, events, games } = form.values;

  const submit = (e: Event) => {
    e.preventDefault();
    const address = url.trim();
    let urlError: string | undefined;
    try {
      const parsed = new URL(address);
      if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') urlError = 'must be an https URL';
      else if (address.length > 2048) urlError = 'must be at most 2048 characters';
    } catch {
      urlError = 'must be an absolute https URL, e.g. https://hooks.example.com/bans';
    }
    const parsedGames = parseGames(games);
    const found = {
      url: urlError && `Webhook URL ${urlError}`,
      events: events.length === 0 ? 'Choose at least one event' : undefined,
      games: parsedGames.ok ? undefined : parsedGames.message,
    };
    const refusal = 'The webhook was not added: correct the fields marked below.';
    if (!form.accept(found, refusal, parsedGames.ok) || !parsedGames.ok) return;
    const body: Schemas['CreateWebhookRequest'] = {
      url: address,
      events: eventTypes.filter((t) => events.includes(t)),
      ...(parsedGames.value ? { games: parsedGames.value } : {}),
    };
    void request.run(
      () => call('post', '/v1/webhooks', { body }),
      (answer) => {
        form.reset(['url', 'games']);
        onAdded(answer.body);
      },
      (answer) => answer.status === 201,
    );
  };

  return (
    <section aria-labelledby="add-webhook-heading" class="panel">
      <h3 id="add-webhook-heading">Add a webhook</h3>
      <form onSubmit={submit} noValidate>
        <Field
          id="webhook-url"
          label="Webhook URL"
          type="url"
          value={url}
          onValue={form.set('url')}
          error={form.error('url')}
          hint="An https URL on a public address; events are POSTed to it, signed."
          required
        />
        <ChoiceList
          id="webhook-event"
          legend="Events"
          options={eventTypes}
          chosen={events}
          onChosen={form.set('events')}
          error={form.error('events')}
        />
        <Field
          id="webhook-games"
          label="Webhook games (optional)"
          value={games}
          onValue={form.set('games')}
          error={form.error('games')}
          hint="Game IDs separated by commas: your game bans are sent only from them. Empty: every game."
        />
        <button type="submit" disabled={busy}>
          {busy ? 'Adding…' : 'Add webhook'}
        </button>
      </form>
      <Notice message={message} />
    </section>
  );
};

type DeliveryStatus = Schemas['Delivery']['status'];

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

const Deliveries = ({ call, hook, version }: { call: Call; hook: Webhook; version: number }) => {
  const heading = useFocusOn<HTMLHeadingElement>(hook.webhook_id);
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  const [page, setPage] = useState<Schemas['DeliveryList'] | null>(null);
  const [message, setMessage] = useState<Message>(null);
  const [status, setStatus] = useState<DeliveryStatus | 'any'>('any');
  const { busy, run } = useBusy();
  const load = (stack: Array<string | undefined>, only = status) =>
    run(async () => {
      const cursor = stack[stack.length - 1];
      const answer = await call('get', '/v1/webhooks/{webhook_id}/deliveries', {
        path: { webhook_id: hook.webhook_id },
        query: { limit: 25, ...(cursor ? { cursor } : {}), ...(only === 'any' ? {} : { status: only }) },
      });
      if (answer.status !== 200) {
        setMessage(errorMessage(answer));
        return;
      }
      setMessage(null);
      setCursors(stack);
      setPage(answer.body);
    });
  // A test event sent (version) shows at once: the first page again, whatever the filter.
  useEffect(() => {
    void load([undefined]);
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
            const only = (e.currentTarget as HTMLSelectElement).value as DeliveryStatus | 'any';
            setStatus(only);
            void load([undefined], only);
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
        <TableScroll label="Deliveries table">
          <table>
            <caption>Deliveries, newest event first (page {cursors.length})</caption>
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Type</th>
                <th scope="col">Occurred</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Last answer</th>
                <th scope="col">Last error</th>
                <th scope="col">Next attempt</th>
                <th scope="col">Delivered</th>
              </tr>
            </thead>
            <tbody>
              {page.items.length === 0 && (
                <tr>
                  <td colSpan={9}>Nothing sent to it yet.</td>
                </tr>
              )}
              {page.items.map((d) => (
                <tr key={d.event_id}>
                  <th scope="row">{d.event_id}</th>
                  <td>{d.type}</td>
                  <td>{formatTime(d.occurred_at)}</td>
                  <td>{d.status}</td>
                  <td>{d.attempts}</td>
                  <td>{d.last_status ?? '—'}</td>
                  <td>{d.last_error ?? '—'}</td>
                  <td>{formatTime(d.next_attempt_at)}</td>
                  <td>{formatTime(d.delivered_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      <div class="pager">
        <button
          type="button"
          disabled={busy || cursors.length <= 1}
          onClick={() => void load(cursors.slice(0, -1))}
        >
          Previous page
        </button>
        <button type="button" disabled={busy} onClick={() => void load(cursors)}>
          Refresh deliveries
        </button>
        <button
          type="button"
          disabled={busy || !page || page.next_cursor === null}
          onClick={() => page?.next_cursor && void load([...cursors, page.next_cursor])}
        >
          Next page
        </button>
      </div>
    </section>
  );
};

export const WebhooksView = ({ call, knowledge }: { call: Call; knowledge: ScopeKnowledge }) => {
  const [hooks, setHooks] = useState<Webhook[] | null>(null);
  const [message, setMessage] = useState<Message>(null);
  const [added, setAdded] = useState<NewWebhook | null>(null);
  const [deleting, setDeleting] = useState<Webhook | null>(null);
  const [showing, setShowing] = useState<Webhook | null>(null);
  /** Bumped by each test event sent, so the deliveries shown are read again. */
  const [tests, setTests] = useState(0);
  const { busy, run } = useBusy();

  const list = async () => {
    const answer = await call('get', '/v1/webhooks', {});
    if (answer.status !== 200) {
      setMessage(errorMessage(answer));
      return;
    }
    setHooks(answer.body.items);
  };
  useEffect(() => {
    if (knowledge['keys:manage'].held !== false) void run(list);
  }, []);

  if (knowledge['keys:manage'].held === false)
    return (
      <section aria-labelledby="webhooks-heading" class="panel">
        <h2 id="webhooks-heading">Webhooks</h2>
        <p class="gate">
          Webhooks are hidden: managing them needs the scope <code>keys:manage</code>, which this session
          lacks ({knowledge['keys:manage'].note}).
        </p>
      </section>
    );

  const remove = (hook: Webhook) =>
    run(async () => {
      const answer = await call('delete', '/v1/webhooks/{webhook_id}', {
        path: { webhook_id: hook.webhook_id },
      });
      if (answer.status !== 204) {
        setMessage(errorMessage(answer));
        return;
      }
      setDeleting(null);
      if (showing?.webhook_id === hook.webhook_id) setShowing(null);
      setMessage({ kind: 'ok', text: `Webhook ${hook.webhook_id} deleted: nothing more is sent to it.` });
      await list();
    });

  const sendTest = (hook: Webhook) =>
    run(async () => {
      const answer = await call('post', '/v1/webhooks/{webhook_id}/test', {
        path: { webhook_id: hook.webhook_id },
      });
      if (answer.status !== 202) {
        setMessage(errorMessage(answer));
        return;
      }
      setMessage({
        kind: 'ok',
        text: `Test event ${answer.body.event_id} queued to ${hook.webhook_id}: it is listed among its deliveries, pending until the receiver answers. Refresh to see how it went.`,
      });
      setShowing(hook);
      setTests((n) => n + 1);
    });

  return (
    <section aria-labelledby="webhooks-heading" class="panel">
      <h2 id="webhooks-heading">Webhooks</h2>
      {added && (
        <OnceSecret
          id="webhook-secret"
          title={`Webhook ${added.webhook_id} added`}
          label="Webhook signing secret"
          value={added.secret}
          onHide={() => setAdded(null)}
        />
      )}
      <Notice message={message} />
      {hooks && (
        <div class="pager">
          <button type="button" disabled={busy} onClick={() => void run(list)}>
            Refresh webhooks
          </button>
        </div>
      )}
      {hooks && (
        <TableScroll label="Webhooks table">
          <table>
            <caption>Webhooks of your publisher ({hooks.length} of at most 10)</caption>
            <thead>
              <tr>
                <th scope="col">Webhook</th>
                <th scope="col">URL</th>
                <th scope="col">Events</th>
                <th scope="col">Games</th>
                <th scope="col">Created</th>
                <th scope="col">Health</th>
                <th scope="col" class="sticky-end">
                  Actions
                </th>
              </tr>
            </thead>
            <tbody>
              {hooks.length === 0 && (
                <tr>
                  <td colSpan={7}>No webhooks yet.</td>
                </tr>
              )}
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
                        onClick={() => void sendTest(hook)}
                      >
                        Send test event
                      </button>
                      <button
                        type="button"
                        class="small"
                        aria-label={`Show deliveries of ${hook.webhook_id}`}
                        onClick={() => setShowing(hook)}
                      >
                        Deliveries
                      </button>
                      <button
                        type="button"
                        class="small"
                        aria-label={`Delete webhook ${hook.webhook_id}`}
                        disabled={busy}
                        onClick={() => setDeleting(hook)}
                      >
                        Delete
                      </button>
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      {deleting && (
        <ConfirmStep
          id="delete-webhook-heading"
          title={`Delete webhook ${deleting.webhook_id}?`}
          action="Delete webhook"
          busyAction="Deleting…"
          busy={busy}
          onConfirm={() => void remove(deleting)}
          onCancel={() => {
            refocus(`Delete webhook ${deleting.webhook_id}`);
            setDeleting(null);
          }}
        >
          <p>Nothing more is sent to {deleting.url}, pending retries included.</p>
        </ConfirmStep>
      )}
      {showing && <Deliveries call={call} hook={showing} version={tests} />}
      <AddWebhookForm
        call={call}
        onAdded={(hook) => {
          setAdded(hook);
          void run(list);
        }}
      />
    </section>
  );
};
