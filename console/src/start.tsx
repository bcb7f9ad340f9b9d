import type { ComponentType } from 'preact';
import { useState } from 'preact/hooks';
import { addressHash } from './address';
import type { Call, Scope } from './api';
import { Activity } from './start-activity';
import { OpenAppeals } from './start-appeals';
import { EndingSoon } from './start-ending';
import { Panel } from './start-panel';
import { FailingWebhooks } from './start-webhooks';
import type { ScopeKnowledge } from './ui';

/**
 * The Start page: what happened today and what needs a moderator now. Each
 * panel is read on its own, with its own scope: one the session may not read says so (as every
 * view does), one that fails says why, and neither hides the others.
 *
 *   - today's activity by person, from the audit trail (`audit:read`): today is the moderator's
 *     own day, since midnight in the browser's time zone;
 *   - the open appeals and how long the oldest has waited (`appeals:decide`);
 *   - the publisher's bans in force that end in the next 24 hours, soonest first (`bans:read`),
 *     a page at a time (Show more);
 *   - the webhooks whose deliveries are failing: being retried, or given up (`keys:manage`).
 */

/**
 * The page's panels, in order: each its heading, the scope it needs, its link and what it shows.
 * The appeals first: what waits for a moderator comes before what has happened.
 */
const panels: Array<{
  id: string;
  title: string;
  scope: Scope;
  what: string;
  link: { href: string; text: string };
  Shows: ComponentType<{ call: Call; version: number }>;
}> = [
  {
    id: 'start-appeals-heading',
    title: 'Open appeals',
    scope: 'appeals:decide',
    what: 'The appeals queue',
    link: { href: addressHash({ view: 'appeals' }), text: 'Work the appeals queue' },
    Shows: OpenAppeals,
  },
  {
    id: 'start-activity-heading',
    title: "Today's activity by person",
    scope: 'audit:read',
    what: "Today's activity",
    link: { href: addressHash({ view: 'audit' }), text: 'Open the audit trail' },
    Shows: Activity,
  },
  {
    id: 'start-ending-heading',
    title: 'Ending in the next 24 hours',
    scope: 'bans:read',
    what: 'The list of bans ending soon',
    link: { href: addressHash({ view: 'device' }), text: 'Look a device up in Devices' },
    Shows: EndingSoon,
  },
  {
    id: 'start-webhooks-heading',
    title: 'Webhooks failing now',
    scope: 'keys:manage',
    what: 'Webhook delivery status',
    link: { href: addressHash({ view: 'webhooks' }), text: 'Open webhooks and their deliveries' },
    Shows: FailingWebhooks,
  },
];

export const StartView = ({ call, knowledge }: { call: Call; knowledge: ScopeKnowledge }) => {
  // Bumped by Read again: every panel reads again.
  const [version, setVersion] = useState(0);
  return (
    <section aria-labelledby="start-heading" class="panel">
      <h2 id="start-heading">Start</h2>
      <div class="actions">
        <p class="meta">
          Today's activity, the appeals waiting, the bans ending soon and the webhooks failing, each read on
          its own.
        </p>
        <button type="button" class="secondary" onClick={() => setVersion((v) => v + 1)}>
          Read again
        </button>
      </div>
      {panels.map(({ Shows, ...panel }) => (
        <Panel key={panel.id} {...panel} knowledge={knowledge}>
          <Shows call={call} version={version} />
        </Panel>
      ))}
    </section>
  );
};
