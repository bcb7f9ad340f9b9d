import { useLayoutEffect } from 'preact/hooks';
import { type ConsoleSignIn, startSignIn } from './people';
import { type Session, type SignedIn, signIn } from './session';
import { Field, type Message, Notice } from './ui';
import { useForm } from './use-form';
import { useRequest } from './use-request';

/** The sign-in page: the organisation's identity provider, when there is one, and a pasted API key. */

/**
 * A sign-in's outcome as the answer useRequest reads: the session, or the refusal with its own
 * words (a Problem, which errorMessage takes as it is) rather than an answer of the API's.
 */
const asAnswer = (result: SignedIn) =>
  result.ok
    ? { ok: true as const, status: 200, body: result.session, retryAfter: null }
    : { ok: false as const, body: null, retryAfter: null, ...result.problem };

/** Leaving for the provider is no API call, but it holds the form as one does until the page goes. */
const leaving = { ok: true as const, status: 200, body: null, retryAfter: null };

export const SignIn = ({
  onSignedIn,
  notice,
  provider,
}: {
  onSignedIn: (session: Session) => void;
  /** Why the moderator is here (signed out, a sign-in that failed): shown until the first attempt. */
  notice: Message;
  /** The organisation's identity provider; null when this deployment has none. */
  provider: ConsoleSignIn | null;
}) => {
  const request = useRequest();
  const { busy, message } = request;
  const form = useForm({ key: '' }, request);
  // Before the first paint, so the notice shows (and takes focus) as the page opens.
  useLayoutEffect(() => request.setMessage(notice), []);
  const submit = (e: Event) => {
    e.preventDefault();
    void request.run(
      async () => asAnswer(await signIn(form.values.key)),
      (answer) => {
        form.reset();
        onSignedIn(answer.body);
      },
    );
  };
  const leave = (to: ConsoleSignIn) =>
    request.run(
      () => startSignIn(to).then(() => leaving),
      () => undefined,
    );
  return (
    <section aria-labelledby="signin-heading" class="panel narrow">
      <h2 id="signin-heading">Sign in</h2>
      {provider && (
        <>
          <p>Moderators sign in as themselves, with their organisation's account and its role.</p>
          <button type="button" disabled={busy} onClick={() => void leave(provider)}>
            Sign in with {provider.name}
          </button>
          <h3>Or with an API key</h3>
        </>
      )}
      <p>
        {provider ? 'For automation and break-glass access: paste' : 'Paste'} an API key. It is kept in this
        tab's memory only, and forgotten when you sign out or close the tab.
      </p>
      <form onSubmit={submit} noValidate>
        <Field
          id="api-key"
          label="API key"
          type="password"
          value={form.values.key}
          onValue={form.set('key')}
          hint="Starts with bsk_. The console shows what the key's scopes allow."
          required
        />
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <Notice message={message} />
    </section>
  );
};
