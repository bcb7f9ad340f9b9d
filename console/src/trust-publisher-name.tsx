import { DISPLAY_NAME_MAX, DISPLAY_NAME_PATTERN, DISPLAY_NAME_RULE } from '@kernel/display-name';
import type { Call } from './api';
import type { Directory } from './trust-directory';
import { Field, Notice, type ScopeKnowledge, useOnChange } from './ui';
import { useForm } from './use-form';
import { useRequest } from './use-request';

const displayName = new RegExp(DISPLAY_NAME_PATTERN, 'u');

/** The API's rule for a display name (kernel/display-name.ts), in its words. */
export const checkDisplayName = (name: string): string | undefined =>
  [...name].length < 1 || [...name].length > DISPLAY_NAME_MAX
    ? `must be 1-${DISPLAY_NAME_MAX} characters`
    : displayName.test(name)
      ? undefined
      : DISPLAY_NAME_RULE;

/** The publisher's own name in the directory: what others see beside its global bans. */
export const PublisherName = ({
  call,
  knowledge,
  publisherId,
  directory,
}: {
  call: Call;
  knowledge: ScopeKnowledge;
  publisherId: string;
  directory: Directory;
}) => {
  const current = directory.entries?.find((e) => e.publisher_id === publisherId)?.display_name ?? null;
  const request = useRequest();
  const { busy, message } = request;
  const form = useForm({ name: current ?? '' }, request);
  const { name } = form.values;
  useOnChange(current, (saved) => {
    if (saved !== null) form.set('name')(saved);
  });

  const writeMissing = knowledge['policy:write'].held === false;
  const save = (e: Event) => {
    e.preventDefault();
    const problem = checkDisplayName(name);
    if (!form.accept({ name: problem && `Display name ${problem}` }, `Display name ${problem}.`)) return;
    void request.run(
      () => call('put', '/v1/publisher', { body: { display_name: name } }),
      (answer) => {
        request.setMessage({
          kind: 'ok',
          text: `Your name in the directory is now “${answer.body.display_name}”.`,
        });
        void directory.read();
      },
      (answer) => answer.status === 200,
    );
  };

  return (
    <section aria-labelledby="publisher-name-heading" class="panel">
      <h3 id="publisher-name-heading">Your name in the directory</h3>
      <p>
        {current === null
          ? `Other publishers see ${publisherId} beside your global bans, with no name (none is set, or you have made no global ban yet).`
          : `Other publishers see “${current}” (${publisherId}) beside your global bans.`}
      </p>
      {writeMissing ? (
        <p class="gate">
          Naming your publisher needs the scope <code>policy:write</code>, which this session lacks (
          {knowledge['policy:write'].note}).
        </p>
      ) : (
        <form onSubmit={save} noValidate>
          <Field
            id="publisher-name"
            label="Display name"
            value={name}
            onValue={form.set('name')}
            hint={`Up to ${DISPLAY_NAME_MAX} characters of plain text, shown exactly as typed.`}
            error={form.error('name', 'display_name')}
          />
          <button type="submit" disabled={busy}>
            {busy ? 'Saving…' : 'Save name'}
          </button>
        </form>
      )}
      <Notice message={message} />
    </section>
  );
};
