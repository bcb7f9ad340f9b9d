import type { Route } from '../../lib/routes';

/**
 * Which nested stack holds a route's function (its role, policy, log group, invoke permission and
 * alarm), by the first segment of its path after `/v1`: one stack per domain, so that no template
 * nears CloudFormation's 500 resources as routes are added (test/infra/scale.test.ts adds 60).
 * A path of a domain not listed here goes to `Other`, which has room for the same again; name its
 * domain here when it grows. Moving a function between these stacks replaces it (nothing in a
 * function is kept), so the split can change; the parent's resources, which hold data or are
 * shared, stay where they are.
 */
export const ROUTE_DOMAINS = {
  Bans: ['bans', 'device', 'devices', 'enforcement'],
  Publishers: ['policy', 'reasons', 'publisher', 'publishers', 'keys', 'audit'],
  Feed: ['events', 'webhooks'],
  Appeals: ['appeals'],
} as const satisfies Record<string, readonly string[]>;

export type RouteDomain = keyof typeof ROUTE_DOMAINS | 'Other';

/** The domain of a route: its path's first segment after `/v1`, or Other. */
export const routeDomainOf = (route: Pick<Route, 'path'>): RouteDomain => {
  const segment = /^\/v1\/([^/]+)/.exec(route.path)?.[1];
  for (const [domain, segments] of Object.entries(ROUTE_DOMAINS))
    if (segment && (segments as readonly string[]).includes(segment)) return domain as RouteDomain;
  return 'Other';
};

/** The construct id of a domain's nested stack. */
export const routeStackId = (domain: RouteDomain) => `Routes${domain}`;
