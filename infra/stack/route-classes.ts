import { allowedMethods } from '../../lib/http/gateway-answers';
import { type Route, type ThrottleClass, throttleClasses } from '../../lib/routes';

/**
 * What the stack needs of the route classes (lib/routes.ts) so that nothing it makes per class
 * grows with the number of routes: the usage plan's per-method entries (API Gateway's quota: 20)
 * and the access-log filter patterns of the class metrics (CloudWatch's limit: 1,024 characters).
 *
 * A route's class follows from its method unless the route says otherwise: GET (and its HEAD) is
 * `read`, every other method `write`. The access log names the method and the resource path, so a
 * class's pattern is its methods, minus or plus the few routes whose class is not their method's:
 * the batch, the feed and the public routes. A new read or write route changes no pattern.
 */

/** The class a method's routes are in unless a route names another. */
export const DEFAULT_CLASS_BY_METHOD: Readonly<Record<string, ThrottleClass>> = {
  GET: 'read',
  HEAD: 'read',
  PUT: 'write',
  POST: 'write',
  PATCH: 'write',
  DELETE: 'write',
};

/**
 * The classes whose per-publisher limits are the usage plan's own throttle, one bucket for all of
 * a publisher's requests: the classes of most routes, so they need no entry per method.
 */
export const PLAN_WIDE_CLASSES = ['read', 'write'] as const satisfies readonly ThrottleClass[];

/** API Gateway's default quota of "method-level throttling settings per stage in a usage plan". */
export const USAGE_PLAN_ENTRY_QUOTA = 20;

/** CloudWatch Logs' longest filter pattern. */
export const FILTER_PATTERN_MAX_CHARS = 1024;

const isPlanWide = (throttle: ThrottleClass) => (PLAN_WIDE_CLASSES as readonly string[]).includes(throttle);

/** A route's methods as deployed: HEAD beside GET, each in the route's class. */
const methodsOf = (route: Route) => allowedMethods([route.method]);

/** The routes whose class is not their method's default: named one by one in the patterns. */
export const exceptionRoutes = (routes: readonly Route[]) =>
  routes.filter((route) => DEFAULT_CLASS_BY_METHOD[route.method] !== route.throttle);

/**
 * Checks what the patterns rely on: a path's routes of one method group (GET/HEAD, or the others)
 * are all in one class, so that a class can leave an exception out by its path.
 */
export const checkRouteClasses = (routes: readonly Route[]) => {
  const seen = new Map<string, ThrottleClass>();
  for (const route of routes) {
    const key = `${DEFAULT_CLASS_BY_METHOD[route.method]} ${route.path}`;
    const known = seen.get(key);
    if (known && known !== route.throttle)
      throw new Error(
        `${route.id}: ${route.path} has ${DEFAULT_CLASS_BY_METHOD[route.method]}-method routes in classes ${known} and ${route.throttle}; the class metrics tell them apart by path only`,
      );
    seen.set(key, route.throttle);
  }
};

const anyOf = (field: string, values: readonly string[]) =>
  values.length === 1
    ? `$.${field} = "${values[0]}"`
    : `(${values.map((v) => `$.${field} = "${v}"`).join(' || ')})`;

/**
 * The access-log condition that selects one class's requests (no status): its default methods
 * without the other classes' exceptions on them, and its own exceptions by method and path.
 */
export const classCondition = (routes: readonly Route[], throttle: ThrottleClass): string => {
  const exceptions = exceptionRoutes(routes);
  const clauses: string[] = [];
  const defaultMethods = Object.entries(DEFAULT_CLASS_BY_METHOD)
    .filter(([, c]) => c === throttle)
    .map(([method]) => method);
  if (defaultMethods.length > 0) {
    const others = [
      ...new Set(
        exceptions
          .filter((r) => r.throttle !== throttle && methodsOf(r).some((m) => defaultMethods.includes(m)))
          .map((r) => r.path),
      ),
    ];
    clauses.push(
      [anyOf('httpMethod', defaultMethods), ...others.map((p) => `$.resourcePath != "${p}"`)].join(' && '),
    );
  }
  const byMethods = new Map<string, string[]>();
  for (const route of exceptions.filter((r) => r.throttle === throttle)) {
    const methods = methodsOf(route).join(' ');
    byMethods.set(methods, [...(byMethods.get(methods) ?? []), route.path]);
  }
  for (const [methods, paths] of byMethods)
    clauses.push(`${anyOf('httpMethod', methods.split(' '))} && ${anyOf('resourcePath', paths)}`);
  if (clauses.length === 0) return '$.httpMethod = "-"';
  return clauses.length === 1 ? (clauses[0] as string) : clauses.map((c) => `(${c})`).join(' || ');
};

/** An access-log filter pattern: the class's requests, and a status condition if any. */
export const classPattern = (routes: readonly Route[], throttle: ThrottleClass, status?: string) =>
  status
    ? `{ ($.status = ${status}) && (${classCondition(routes, throttle)}) }`
    : `{ ${classCondition(routes, throttle)} }`;

/** The routes that get a usage-plan entry of their own: those of a class with limits of its own. */
export const usagePlanEntryRoutes = (routes: readonly Route[]) =>
  routes.filter((route) => route.auth && !isPlanWide(route.throttle));

/** A route's per-publisher limits; every route behind the authorizer has them. */
export const publisherLimits = (route: Route) => {
  const limits = throttleClasses[route.throttle].publisher;
  if (!limits)
    throw new Error(`${route.id} is authorized but its class ${route.throttle} has no publisher limits`);
  return limits;
};
