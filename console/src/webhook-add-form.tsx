import type { Call, Schemas } from './api';
import { useDraft } from './drafts';
import { ChoiceList, Field, Notice } from './ui';
import { useForm } from './use-form';
import { useRequest } from './use-request';
import { parseGames } from './validation';

/** The Webhooks view's form adding a webhook: its URL, the events it gets, the games it hears from. */

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

/** The URL's fault in words (the API's rule: absolute, http(s), at most 2048 characters), if it has one. */
const urlProblem = (address: string): string | undefined => {
  try {
    const parsed = new URL(address);
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return 'must be an https URL';
    if (address.length > 2048) return 'must be at most 2048 characters';
    return undefined;
  } catch {
    return 'must be an absolute https URL, e.g. https://hooks.example.com/bans';
  }
};

export const AddWebhookForm = ({ call, onAdded }: { call: Call; onAdded: (hook: NewWebhook) => void }) => {
  const request = useRequest();
  const { busy, message } = request;
  const blank = { url: '', events: [...eventTypes] as EventType[], games: '' };
  const form = useForm(blank, request);
  // The typing survives a reload or a new sign-in (drafts.ts); the events are ticked again.
  const draft = useDraft('webhook-add', form, blank, ['url', 'games']);
  const { url, events, games } = form.values;

  const submit = (e: Event) => {
    e.preventDefault();
    const address = url.trim();
    const urlError = urlProblem(address);
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
        draft.clear();
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
