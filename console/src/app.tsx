import { useEffect, useState } from 'preact/hooks';
import { Console } from './app-console';
import { leaveWithoutAsking } from './drafts';
import {
  type ConsoleSignIn,
  type Finished,
  finishSignIn,
  isReturnFromProvider,
  loadSignIn,
  rememberSignedIn,
  revokeRefreshToken,
  signOutAddress,
  startSignIn,
  wasSignedIn,
} from './people';
import { type Session, signInPerson } from './session';
import { SignIn } from './sign-in';
import { errorMessage, type Message } from './ui';

/**
 * The moderator console: the sign-in page (sign-in.tsx) until a session starts, then the console
 * (app-console.tsx). The key, or a person's tokens, live only in this component's state (memory):
 * never in localStorage, sessionStorage or a URL. Signing out, or a 401, drops the session and
 * with it the credential and everything read with it.
 */

/** The header's account line: who, in which role, for which publisher. */
const signedInAs = (session: Session) =>
  session.person
    ? `Signed in as ${session.person.who.email} (${session.person.who.role}) for ${session.person.who.publisher_id}`
    : `Signed in${session.identity ? ` with key ${session.identity.name} (${session.identity.key_id})` : ''}${
        session.policy ? ` for ${session.policy.publisher_id}` : ''
      }`;

export const App = () => {
  const [session, setSession] = useState<Session | null>(null);
  const [notice, setNotice] = useState<Message>(null);
  const [generation, setGeneration] = useState(0);
  const [provider, setProvider] = useState<ConsoleSignIn | null>(null);
  // Back from the provider, or about to go there again for a reload's silent sign-in.
  const [returning, setReturning] = useState(() => isReturnFromProvider() || wasSignedIn());
  const signOut = (message: Message) => {
    rememberSignedIn(false);
    setSession(null);
    setNotice(message);
    setGeneration((g) => g + 1);
  };
  useEffect(() => {
    void (async () => {
      const config = await loadSignIn();
      setProvider(config);
      // A reload of a tab a person was signed in to: back through the provider, without a prompt.
      if (!isReturnFromProvider()) {
        if (config && wasSignedIn()) await startSignIn(config, { silent: true });
        else setReturning(false);
        return;
      }
      const finished = config
        ? await finishSignIn(config)
        : ({
            ok: false,
            text: 'This console has no identity provider to finish signing in with.',
          } as Finished);
      const signedIn = finished.ok ? await signInPerson(finished.person, finished.tokens) : null;
      setReturning(false);
      if (!finished.ok) {
        rememberSignedIn(false);
        setNotice({ kind: finished.silent ? 'ok' : 'error', text: finished.text });
      } else if (signedIn && !signedIn.ok) setNotice(errorMessage(signedIn.problem));
      else if (signedIn?.ok) {
        rememberSignedIn(true);
        setSession(signedIn.session);
      }
    })();
    // Once, at load: the provider's answer is in this load's address only.
  }, []);
  const endSession = () => {
    const person = session?.person;
    signOut({
      kind: 'ok',
      text: person ? 'Signed out. Your tokens are forgotten.' : 'Signed out. The key is forgotten.',
    });
    // A person's sign-out revokes their refresh token, then ends their session at the provider,
    // which sends them back here.
    if (person && provider)
      void revokeRefreshToken(provider, person.tokens).then(() => {
        leaveWithoutAsking();
        location.assign(signOutAddress(provider, person.tokens));
      });
  };
  return (
    <>
      <header class="top">
        <h1>Device ban console</h1>
        {session && (
          <div class="session">
            <span>{signedInAs(session)}</span>
            <button type="button" onClick={endSession}>
              Sign out
            </button>
          </div>
        )}
      </header>
      <main id="main">
        {session ? (
          <Console key={generation} session={session} onSignOut={signOut} provider={provider} />
        ) : returning ? (
          <p class="panel narrow" role="status">
            Finishing sign-in…
          </p>
        ) : (
          <SignIn
            key={generation}
            notice={notice}
            provider={provider}
            onSignedIn={(s) => {
              setNotice(null);
              setSession(s);
            }}
          />
        )}
      </main>
    </>
  );
};
