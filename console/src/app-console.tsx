import { useEffect, useState } from 'preact/hooks';
import type { View } from './address';
import type { Policy, Scope } from './api';
import { KeyPanel, summary } from './app-key-panel';
import { useNavigation } from './app-navigation';
import { AppealsView } from './appeals';
import { AuditView } from './audit';
import { BulkView } from './bulk';
import { DeviceView } from './device-view';
import { claimDrafts } from './drafts';
import { gameProblem, useGamesUsed } from './game-picker';
import { IdleWarning, useIdleSignOut } from './idle';
import { KeysView } from './keys';
import { type ConsoleSignIn, revokeRefreshToken } from './people';
import { PeopleView } from './people-admin';
import { PolicyView } from './policy';
import type { Session } from './session';
import { useSessionCall } from './session-call';
import { StartView } from './start';
import { TransparencyView } from './transparency';
import { ConfirmStep, type Message, Notice, type ScopeKnowledge, useFocusOn } from './ui';
import { WebhooksView } from './webhooks';

/**
 * The signed-in console: the sections, the view shown, and the game the views that use one act in. The key, or a
 * person's tokens, live only in this component's state (memory), and go with it at sign-out.
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
  { id: 'people', label: 'People', needs: 'people:manage' },
  // The transparency report: counts over the audit trail's bans and appeals (DSA Art. 15 and 24).
  { id: 'transparency', label: 'Transparency', needs: 'audit:read' },
];

/**
 * The sections this session may use: one whose scope it is known to lack is not offered (a
 * viewer sees no Appeals, API keys or Webhooks). A scope not yet learned (a key's, until first
 * used) keeps its entry, whose view then says what it needs. An address naming a hidden view
 * still opens it, with that view's own "needs the scope" line.
 */
const shownSections = (knowledge: ScopeKnowledge) =>
  sections.filter((v) => v.needs === undefined || knowledge[v.needs].held !== false);

export const Console = ({
  session,
  onSignOut,
  provider,
}: {
  session: Session;
  onSignOut: (message: Message) => void;
  provider: ConsoleSignIn | null;
}) => {
  // The drafts are this session's owner's from the first render, before any form restores one.
  useState(() => claimDrafts(session.owner));
  const { call, knowledge, signOut, currentTokens } = useSessionCall(session, provider, onSignOut);
  const idleWarning = useIdleSignOut(provider?.idle_minutes, (minutes) => {
    // The refresh token is revoked, so nothing can renew the session; the provider's own
    // session stays (leaving for its sign-out page would need the absent person's click).
    const tokens = currentTokens();
    if (provider && tokens) void revokeRefreshToken(provider, tokens);
    signOut({ kind: 'error', text: `Signed out after ${minutes} minutes without input. Sign in again.` });
  });
  const [policy, setPolicy] = useState<Policy | null>(session.policy);
  const at = useNavigation(call, session);
  const { view, game, bound, device } = at;
  const gameError = gameProblem(game, bound);
  // The games the publisher has made bans in: read again as a view that uses a game opens (or
  // once the session learns it may read bans).
  const used = useGamesUsed(call, knowledge);
  useEffect(() => {
    if (view === 'device' || view === 'bulk') used.load();
  }, [view, knowledge['bans:read'].held]);
  // The game picker of the views that use one: the choice is carried from one such view to another.
  const picker = {
    game,
    gameError,
    onGame: at.setGame,
    used,
    gameHint: bound
      ? `Sent as X-Game-Id. This key is bound to: ${bound.join(', ')}.`
      : 'Sent as X-Game-Id on ban and enforcement requests.',
  };
  const heading = useFocusOn<HTMLHeadingElement>(at.navigations);
  const [welcome] = useState<Message>(() => ({ kind: 'ok', text: summary(session) }));
  // What every view is given.
  const common = { call, knowledge };

  return (
    <>
      {idleWarning && <IdleWarning />}
      <Notice message={welcome} />
      <KeyPanel session={session} knowledge={knowledge} />
      <nav aria-label="Console sections">
        <ul>
          {shownSections(knowledge).map((v) => (
            <li key={v.id}>
              <button
                type="button"
                aria-current={view === v.id ? 'page' : undefined}
                onClick={() => at.go(v.id)}
              >
                {v.label}
              </button>
            </li>
          ))}
        </ul>
      </nav>
      <h2 class="visually-hidden" tabIndex={-1} ref={heading}>
        {sections.find((v) => v.id === view)?.label}
      </h2>
      {view === 'start' && <StartView {...common} />}
      {view === 'device' && (
        <DeviceView
          {...common}
          session={session}
          policy={policy}
          {...picker}
          device={device}
          onDevice={at.openDevice}
        />
      )}
      {view === 'bulk' && (
        <BulkView
          {...common}
          policy={policy}
          publisher={policy?.publisher_id ?? session.person?.who.publisher_id ?? null}
          {...picker}
        />
      )}
      {at.leavingFor && (
        <ConfirmStep
          id="leave-policy-heading"
          title="Discard your unsaved policy changes?"
          action="Discard and leave"
          busyAction="Leaving…"
          busy={false}
          onConfirm={() => at.leavingFor && at.discard(at.leavingFor)}
          onCancel={at.stay}
        >
          <p>The flags you ticked are not saved. Leaving the policy drops them.</p>
        </ConfirmStep>
      )}
      {view === 'policy' && (
        <PolicyView
          {...common}
          game={game}
          gameError={gameError}
          onDirty={at.setPolicyDirty}
          device={device}
          onRead={setPolicy}
          onSaved={(saved) => {
            setPolicy(saved);
            at.readDeviceAgain();
          }}
        />
      )}
      {view === 'appeals' && (
        <AppealsView {...common} policy={policy} appealId={at.appeal} onAppeal={at.openAppeal} />
      )}
      {view === 'audit' && <AuditView {...common} />}
      {view === 'keys' && (
        <KeysView
          {...common}
          session={session}
          onRevokedOwnKey={() =>
            signOut({ kind: 'ok', text: 'You revoked the key you were signed in with: signed out.' })
          }
        />
      )}
      {view === 'webhooks' && <WebhooksView {...common} />}
      {view === 'people' && <PeopleView {...common} />}
      {view === 'transparency' && <TransparencyView {...common} />}
    </>
  );
};
