import { useEffect, useState } from 'preact/hooks';
import type { Call, Schemas } from './api';
import { OnceSecret } from './secret';
import { ConfirmStep, Notice, refocus, type ScopeKnowledge } from './ui';
import { useRequest } from './use-request';
import { AddWebhookForm } from './webhook-add-form';
import { Deliveries } from './webhook-deliveries';
import { WebhooksTable } from './webhook-table';

/**
 * The Webhooks view: the publisher's webhooks with their health, adding one (its secret shown
 * once), deleting, sending a test event, deliveries.
 */

type Webhook = Schemas['Webhook'];
type NewWebhook = Schemas['NewWebhook'];

export const WebhooksView = ({ call, knowledge }: { call: Call; knowledge: ScopeKnowledge }) => {
  const [hooks, setHooks] = useState<Webhook[] | null>(null);
  const [added, setAdded] = useState<NewWebhook | null>(null);
  const [deleting, setDeleting] = useState<Webhook | null>(null);
  const [showing, setShowing] = useState<Webhook | null>(null);
  /** Bumped by each test event sent, so the deliveries shown are read again. */
  const [tests, setTests] = useState(0);
  // The list read, and what is done to one webhook (delete, test): each with its own outcome.
  const listing = useRequest();
  const acting = useRequest();
  const busy = listing.busy || acting.busy;

  const list = () =>
    listing.run(
      () => call('get', '/v1/webhooks', {}),
      (answer) => setHooks(answer.body.items),
      (answer) => answer.status === 200,
    );
  useEffect(() => {
    if (knowledge['keys:manage'].held !== false) void list();
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
    acting.run(
      () => call('delete', '/v1/webhooks/{webhook_id}', { path: { webhook_id: hook.webhook_id } }),
      () => {
        setDeleting(null);
        if (showing?.webhook_id === hook.webhook_id) setShowing(null);
        acting.setMessage({
          kind: 'ok',
          text: `Webhook ${hook.webhook_id} deleted: nothing more is sent to it.`,
        });
        void list();
      },
      (answer) => answer.status === 204,
    );

  const sendTest = (hook: Webhook) =>
    acting.run(
      () => call('post', '/v1/webhooks/{webhook_id}/test', { path: { webhook_id: hook.webhook_id } }),
      (answer) => {
        acting.setMessage({
          kind: 'ok',
          text: `Test event ${answer.body.event_id} queued to ${hook.webhook_id}: it is listed among its deliveries, pending until the receiver answers. Refresh to see how it went.`,
        });
        setShowing(hook);
        setTests((n) => n + 1);
      },
      (answer) => answer.status === 202,
    );

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
      <Notice message={listing.message} />
      <Notice message={acting.message} />
      {hooks && (
        <div class="pager">
          <button type="button" disabled={busy} onClick={() => void list()}>
            Refresh webhooks
          </button>
        </div>
      )}
      {hooks && (
        <WebhooksTable
          hooks={hooks}
          busy={busy}
          onTest={(hook) => void sendTest(hook)}
          onShow={setShowing}
          onDelete={setDeleting}
        />
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
          void list();
        }}
      />
    </section>
  );
};
