import { useEffect, useState } from 'preact/hooks';
import type { Call, Policy } from './api';
import type { OpenDevice } from './device';
import { DeviceFormatsEditor } from './device-formats-editor';
import { PolicyForm } from './policy-form';
import { ReasonCatalogueEditor } from './reasons-editor';
import { useDirectory } from './trust-directory';
import { PublisherName } from './trust-publisher-name';
import { Notice, type ScopeKnowledge } from './ui';
import { useRequest } from './use-request';

/**
 * The Policy view: the eight flags, each with what it changes, and before saving a preview of how
 * the open device's enforcement and reputation would change; the publisher's name in the
 * directory, the reason catalogue and the device id formats.
 */

interface Props {
  call: Call;
  knowledge: ScopeKnowledge;
  device: OpenDevice | null;
  /** The game last chosen in Devices or Bulk (the policy has no game of its own): where saving counts the devices a change reaches. */
  game: string;
  gameError: string | undefined;
  /** The policy as read when the view opened. */
  onRead: (policy: Policy) => void;
  /** The policy after a save. */
  onSaved: (policy: Policy) => void;
  /** Whether flags are ticked but not saved (the console asks before leaving them). */
  onDirty: (dirty: boolean) => void;
}

export const PolicyView = ({ call, knowledge, device, game, gameError, onRead, onSaved, onDirty }: Props) => {
  const [saved, setSaved] = useState<Policy | null>(null);
  const request = useRequest();
  const { busy } = request;
  const directory = useDirectory(call);

  // Read it fresh when the view opens (another moderator may have changed it); the flags show
  // once it is read, so a late answer never overwrites what the moderator ticked.
  const read = () =>
    request.run(
      () => call('get', '/v1/policy', {}),
      (answer) => {
        setSaved(answer.body);
        onRead(answer.body);
      },
      (answer) => answer.status === 200,
    );
  useEffect(() => {
    if (knowledge['policy:read'].held !== false) void read();
  }, []);

  if (knowledge['policy:read'].held === false)
    return (
      <section aria-labelledby="policy-heading" class="panel">
        <h2 id="policy-heading">Policy</h2>
        <p class="gate">
          The policy is hidden: it needs the scope <code>policy:read</code>, which this session lacks (
          {knowledge['policy:read'].note}).
        </p>
      </section>
    );

  return (
    <section aria-labelledby="policy-heading" class="panel">
      <h2 id="policy-heading">Policy</h2>
      {saved ? (
        <PolicyForm
          call={call}
          knowledge={knowledge}
          device={device}
          game={game}
          gameError={gameError}
          saved={saved}
          directory={directory}
          request={request}
          onSaved={(policy) => {
            setSaved(policy);
            onSaved(policy);
          }}
          onDirty={onDirty}
        />
      ) : (
        <p>
          {busy ? 'Reading the policy…' : 'The policy could not be read.'}{' '}
          {!busy && (
            <button type="button" class="secondary" onClick={() => void read()}>
              Read the policy again
            </button>
          )}
        </p>
      )}
      <Notice message={request.message} />
      {saved && (
        <PublisherName
          call={call}
          knowledge={knowledge}
          publisherId={saved.publisher_id}
          directory={directory}
        />
      )}
      <ReasonCatalogueEditor call={call} knowledge={knowledge} />
      <DeviceFormatsEditor call={call} knowledge={knowledge} />
    </section>
  );
};
