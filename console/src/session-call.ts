import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { type ConsoleSignIn, renewalDelay, renewTokens } from './people';
import { type Session, sessionClient } from './session';
import { errorMessage, type Message, type ScopeKnowledge } from './ui';

/**
 * The signed-in console's calls: each sends the current credential (a person's access token is
 * renewed in place, before it expires), each answer teaches what the session may do, and a 401,
 * or a renewal the provider refuses, signs out with the reason.
 */
export const useSessionCall = (
  session: Session,
  provider: ConsoleSignIn | null,
  onSignOut: (message: Message) => void,
) => {
  const [knowledge, setKnowledge] = useState<ScopeKnowledge>(session.knowledge);
  const signOutRef = useRef(onSignOut);
  signOutRef.current = onSignOut;
  // The calls read the current token.
  const tokens = useRef(session.person?.tokens);
  const bearer = useRef(session.key);
  useEffect(() => {
    if (!session.person || !provider) return;
    let timer: ReturnType<typeof setTimeout>;
    const schedule = () => {
      const current = tokens.current;
      if (!current) return;
      timer = setTimeout(async () => {
        const renewed = await renewTokens(provider, current);
        if (!renewed) {
          signOutRef.current({ kind: 'error', text: 'Your session ended. Sign in again.' });
          return;
        }
        tokens.current = renewed;
        bearer.current = renewed.access;
        schedule();
      }, renewalDelay(current));
    };
    schedule();
    return () => clearTimeout(timer);
  }, [session, provider]);

  const call = useMemo(
    () =>
      sessionClient(() => bearer.current, {
        onUnauthorized: (answer) =>
          signOutRef.current({
            kind: 'error',
            text: session.person
              ? `Signed out: ${errorMessage(answer)?.text ?? 'the API refused your session.'} Sign in again.`
              : `Signed out: ${errorMessage(answer)?.text ?? 'the API refused the key.'} Sign in with a valid key.`,
          }),
        onScope: (scope, held, note) =>
          setKnowledge((k) => (k[scope].held === held ? k : { ...k, [scope]: { held, note } })),
      }),
    [session],
  );
  /** Signs out with `message`, through the latest onSignOut. */
  const signOut = (message: Message) => signOutRef.current(message);
  /** The person's tokens as now renewed (what an idle sign-out revokes). */
  const currentTokens = () => tokens.current;
  return { call, knowledge, signOut, currentTokens };
};
