import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { readAddress, showAddress, type View } from './address';
import { type Policy, type Scope, scopes, scopeUses } from './api';
import { AppealsView } from './appeals';
import { AuditView } from './audit';
import { BulkView } from './bulk';
import { type OpenDevice, readDevice } from './device';
import { DeviceView } from './device-view';
import { KeysView } from './keys';
import {
  type ConsoleSignIn,
  type Finished,
  finishSignIn,
  isReturnFromProvider,
  loadSignIn,
  rememberSignedIn,
  renewalDelay,
  renewTokens,
  revokeRefreshToken,
  signOutAddress,
  startSignIn,
  wasSignedIn,
} from './people';
import { PolicyView } from './policy';
import { type Session, sessionClient, signInPerson } from './session';
import { SignIn } from './sign-in';
import { StartView } from './start';
import {
  ConfirmStep,
  errorMessage,
  Field,
  type Message,
  Notice,
  type ScopeKnowledge,
  useFocusOn,
} from './ui';
import { check } from './validation';
import { WebhooksView } from './webhooks';

/**
 * The moderator console. The key, or a person's tokens, live only in this component's state
 * (memory): never in localStorage, sessionStorage or a URL. Signing out, or a 401, drops the
 * session and with it the credential and everything read with it.
 */

const sections: Array<{ id: View; label: string; needs?: Scope }> = [
  // Today's activity, open appeals, failing webhooks: each panel needs its own scope.
  { id: 'start', label: 'Start' },
  { id: 'device', label: 'Devices' },
  { id: 'bulk', label: 'Bulk', needs: 'bans:read' },
  { id: 'appeals', label: 'Appeals', needs: 'appeals:decide' },
  { id: 'policy', label: 'Policy', needs: 'policy:read' },
  { id: 'audit', label: 'Audit trail', needs: 'audit:read' },
  { id: 'keys', label: 'API keys', needs: 'keys:manage' },
  { id: 'webhooks', label: 'Webhooks', needs: 'keys:manage' },
];

const KeyPanel = ({ session, knowledge }: { session: Session; knowledge: ScopeKnowledge }) => (
  <details class="panel key-panel">
    <summary>{session.person ? 'What your role may do' : 'What this key may do'}</summary>
    {session.person ? (
      <p>
        {session.person.who.email}, {session.person.who.role} of {session.person.who.publisher_id}: every
        game.
      </p>
    ) : session.identity ? (
      <p>
        Key {session.identity.name} ({session.identity.key_id}), games:{' '}
        {session.identity.games === null ? 'every game' : session.identity.games.join(', ')}
        {session.identity.expires_at ? `, expires ${session.identity.expires_at}` : ''}.
      </p>
    ) : (
      <p>
        Scopes are checked at sign-in where a cheap read allows it, and learned from the API's answers
        otherwise.
      </p>
    )}
    <ul>
      {scopes.map((scope) => (
        <li key={scope}>
          <code>{scope}</code> ({scopeUses[scope]}):{' '}
          <strong>
            {knowledge[scope].held === null ? 'not known yet' : knowledge[scope].held ? 'held' : 'missing'}
          </strong>
          {knowledge[scope].note ? `, ${knowledge[scope].note}` : ''}
        </li>
      ))}
    </ul>
  </details>
);

/** What the sign-in found out, in one sentence. */
const summary = (session: Session): string => {
  const by = (held: boolean | null) => scopes.filter((s) => session.knowledge[s].held === held);
  const list = (items: Scope[]) => items.join(', ');
  const parts = [
    `Signed in${session.person ? ` as ${session.person.who.email} (${session.person.who.role})` : ''}${session.policy ? ` for ${session.policy.publisher_id}` : ''}.`,
    by(true).length ? `${session.person ? 'Your role' : 'This key'} holds ${list(by(true))}.` : '',
    by(false).length ? `It lacks ${list(by(false))}: what needs them is hidden.` : '',
    by(null).length ? `${list(by(null))}: checked when first used.` : '',
  ];
  return parts.filter(Boolean).join(' ');
};

const Console = ({
  session,
  onSignOut,
  provider,
}: {
  session: Session;
  onSignOut: (message: Message) => void;
  provider: ConsoleSignIn | null;
}) => {
  const [knowledge, setKnowledge] = useState<ScopeKnowledge>(session.knowledge);
  const [policy, setPolicy] = useState<Policy | null>(session.policy);
  // Where the address points when the console opens (a link, a reload, Back).
  const [start] = useState(readAddress);
  const [view, setView] = useState<View>(start.view);
  const bound = session.identity?.games;
  const [game, setGame] = useState(start.game ?? (bound?.length === 1 ? (bound[0] ?? '') : ''));
  const [device, setDevice] = useState<OpenDevice | null>(null);
  // The appeal open in Appeals: from the address (a link from a device's ban), or chosen there.
  const [appeal, setAppeal] = useState(start.appeal);
  const signOutRef = useRef(onSignOut);
  signOutRef.current = onSignOut;
  // A person's access token is renewed in place, before it expires; the calls read the current one.
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

  const gameProblem =
    game === ''
      ? 'is required: the game the console acts in (X-Game-Id)'
      : (check('game_id', game) ??
        (bound && !bound.includes(game)
          ? `is not one this key is bound to (${bound.join(', ')})`
          : undefined));
  // Focus goes to the view's heading when the moderator changes views (not at sign-in).
  const [navigations, setNavigations] = useState(0);
  // Ticked but unsaved policy flags are not dropped by leaving the view without asking.
  const [policyDirty, setPolicyDirty] = useState(false);
  const [leavingFor, setLeavingFor] = useState<View | null>(null);
  const enter = (target: View) => {
    setLeavingFor(null);
    setView(target);
    setNavigations((n) => n + 1);
  };
  const go = (target: View) => {
    if (view === 'policy' && target !== 'policy' && policyDirty) {
      setLeavingFor(target);
      return;
    }
    enter(target);
    // The section's own entry: Appeals opens on its queue.
    setAppeal(undefined);
    showAddress({ view: target, game, device: device?.deviceId });
  };
  /** An appeal opened (or closed) in Appeals: Back returns to the one before. */
  const openAppeal = (id: string | undefined) => {
    setAppeal(id);
    showAddress({ view: 'appeals', appeal: id });
  };
  /** A device opened (or read again): the address names it, so Back returns to the one before. */
  const openDevice = (opened: OpenDevice | null) => {
    setDevice(opened);
    if (opened) showAddress({ view: 'device', game: opened.game, device: opened.deviceId });
  };
  const lookUpAt = (at: { game?: string | undefined; device?: string | undefined }) => {
    if (!at.game || !at.device) return;
    void readDevice(call, at.game, at.device).then((read) => read.ok && setDevice(read.device));
  };
  // The address the console opened at: its device is looked up; then it follows what is shown.
  useEffect(() => {
    if (start.view === 'device') lookUpAt(start);
    showAddress({ view, game, device: start.device, appeal: start.appeal }, { replace: true });
  }, []);
  // The Game ID typed refines the current entry rather than adding one per keystroke.
  useEffect(() => {
    // Until the device the address names is read, the address keeps naming it (for its game).
    const at = readAddress();
    const named = device
      ? device.game === game
        ? device.deviceId
        : undefined
      : at.game === game
        ? at.device
        : undefined;
    showAddress({ view, game, device: named, appeal: at.appeal }, { replace: true });
  }, [game]);
  // Back, Forward and links in the page: the view, game, device and appeal the address names.
  useEffect(() => {
    const follow = () => {
      const at = readAddress();
      if (view === 'policy' && at.view !== 'policy' && policyDirty) {
        setLeavingFor(at.view);
        history.pushState(null, '', '#/policy');
        return;
      }
      enter(at.view);
      if (at.game !== undefined) setGame(at.game);
      setAppeal(at.appeal);
      if (at.view !== 'device') return;
      if (!at.device) setDevice(null);
      else if (device?.deviceId !== at.device || device.game !== at.game) lookUpAt(at);
    };
    addEventListener('popstate', follow);
    return () => removeEventListener('popstate', follow);
  });
  useEffect(() => {
    if (!policyDirty) return;
    const warn = (e: BeforeUnloadEvent) => e.preventDefault();
    addEventListener('beforeunload', warn);
    return () => removeEventListener('beforeunload', warn);
  }, [policyDirty]);
  const heading = useFocusOn<HTMLHeadingElement>(navigations);
  const [welcome] = useState<Message>(() => ({ kind: 'ok', text: summary(session) }));

  return (
    <>
      <Notice message={welcome} />
      <KeyPanel session={session} knowledge={knowledge} />
      <nav aria-label="Console sections">
        <ul>
          {sections.map((v) => (
            <li key={v.id}>
              <button
                type="button"
                aria-current={view === v.id ? 'page' : undefined}
                onClick={() => go(v.id)}
              >
                {v.label}
              </button>
            </li>
          ))}
        </ul>
      </nav>
      <div class="panel game">
        <Field
          id="game-id"
          label="Game ID"
          value={game}
          onValue={(value) => setGame(value.trim())}
          hint={
            bound
              ? `Sent as X-Game-Id. This key is bound to: ${bound.join(', ')}.`
              : 'Sent as X-Game-Id on ban and enforcement requests.'
          }
          error={game !== '' && gameProblem ? `Game ID ${gameProblem}` : undefined}
        />
      </div>
      <h2 class="visually-hidden" tabIndex={-1} ref={heading}>
        {sections.find((v) => v.id === view)?.label}
      </h2>
      {view === 'start' && <StartView call={call} knowledge={knowledge} />}
      {view === 'device' && (
        <DeviceView
          call={call}
          session={session}
          knowledge={knowledge}
          policy={policy}
          game={game}
          gameError={gameProblem}
          onGame={setGame}
          device={device}
          onDevice={openDevice}
        />
      )}
      {view === 'bulk' && (
        <BulkView
          call={call}
          knowledge={knowledge}
          policy={policy}
          publisher={policy?.publisher_id ?? session.person?.who.publisher_id ?? null}
          game={game}
          gameError={gameProblem}
        />
      )}
      {leavingFor && (
        <ConfirmStep
          id="leave-policy-heading"
          title="Discard your unsaved policy changes?"
          action="Discard and leave"
          busyAction="Leaving…"
          busy={false}
          onConfirm={() => {
            setPolicyDirty(false);
            enter(leavingFor);
            showAddress({ view: leavingFor, game, device: device?.deviceId });
          }}
          onCancel={() => setLeavingFor(null)}
        >
          <p>The flags you ticked are not saved. Leaving the policy drops them.</p>
        </ConfirmStep>
      )}
      {view === 'policy' && (
        <PolicyView
          onDirty={setPolicyDirty}
          call={call}
          knowledge={knowledge}
          device={device}
          onRead={setPolicy}
          onSaved={(saved) => {
            setPolicy(saved);
            // The open device's `enforced` values follow the policy: read it again.
            if (device)
              void readDevice(call, device.game, device.deviceId).then(
                (again) => again.ok && setDevice(again.device),
              );
          }}
        />
      )}
      {view === 'appeals' && (
        <AppealsView
          call={call}
          knowledge={knowledge}
          policy={policy}
          appealId={appeal}
          onAppeal={openAppeal}
        />
      )}
      {view === 'audit' && <AuditView call={call} knowledge={knowledge} />}
      {view === 'keys' && (
        <KeysView
          call={call}
          knowledge={knowledge}
          session={session}
          onRevokedOwnKey={() =>
            signOutRef.current({
              kind: 'ok',
              text: 'You revoked the key you were signed in with: signed out.',
            })
          }
        />
      )}
      {view === 'webhooks' && <WebhooksView call={call} knowledge={knowledge} />}
    </>
  );
};

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
      void revokeRefreshToken(provider, person.tokens).then(() =>
        location.assign(signOutAddress(provider, person.tokens)),
      );
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
