import type * as z from 'zod/mini';
import {
  banCreationResultSchema,
  banListSchema,
  enforcementBatchSchema,
  enforcementSchema,
  healthSchema,
  openApiDocumentSchema,
  policySchema,
  revokedBanSchema,
} from '../model/responses';
import type { RouteId, routes } from '../routes';

/**
 * The documentation half of each operation (lib/http/operations.ts holds the half the handlers
 * run): its tag, description and success responses, keyed by route id. Only the OpenAPI generator
 * (lib/http/openapi.ts) and its examples import this module, so none of it reaches a Lambda bundle.
 */

export type Tag = 'Health' | 'Policy' | 'Bans' | 'Enforcement' | 'Documentation';

export interface ResponseDoc {
  readonly description: string;
  readonly schema: z.ZodMiniType;
}

export interface OperationDoc {
  /** One line: the operation's name in generated clients' docs. */
  readonly summary: string;
  readonly tag: Tag;
  readonly description: string;
  /** Success responses by status code. Error responses are derived from the inputs. */
  readonly responses: Readonly<Record<number, ResponseDoc>>;
  /** Whether the operation answers 404 not_found for a resource that does not exist. */
  readonly notFound?: true;
}

/** Typed so that a route without its documentation does not compile. */
export const operationDocs = {
  health: {
    summary: 'Liveness check for load balancers',
    tag: 'Health',
    description: 'For load balancer checks: no authentication and no database call.',
    responses: {
      200: { description: 'The service is running.', schema: healthSchema },
    },
  },

  getPolicy: {
    summary: "Read the caller's policy",
    tag: 'Policy',
    description:
      "The caller's policy: which ban scopes it enforces and which count toward reputation. A " +
      'new publisher starts with every flag true except `enforce_social_global`.',
    responses: {
      200: { description: 'The full policy.', schema: policySchema },
    },
  },

  updatePolicy: {
    summary: "Change some of the caller's policy flags",
    tag: 'Policy',
    description:
      'Send any subset of the eight flags: only those change, atomically, so concurrent updates of ' +
      'different flags all take effect. `{}` changes nothing but `updated_at`. Unknown fields are a 400.',
    responses: {
      200: {
        description: 'The full policy after the update, with a new `updated_at`.',
        schema: policySchema,
      },
    },
  },

  createBan: {
    summary: 'Record a ban against a device',
    tag: 'Bans',
    description:
      'Records a ban for the game named by `X-Game-Id`. With an `idempotency_key`, a repeat (same ' +
      'publisher, game and key) returns the original ban exactly as first created, whatever the new ' +
      'body says, and any number of concurrent requests with one key make exactly one ban. The body ' +
      'is strict: an unknown field (such as a misspelt `expire_at`) is a 400.',
    responses: {
      201: { description: 'A new ban was recorded.', schema: banCreationResultSchema },
      200: {
        description: 'The idempotency key was used before: the original ban, unchanged.',
        schema: banCreationResultSchema,
      },
    },
  },

  listSocialBans: {
    summary: 'List the social bans of a device that the caller can see',
    tag: 'Bans',
    description:
      'The social bans of the device that the caller can see, newest first. Visibility, paging and `counts` are described under the Bans tag.',
    responses: {
      200: {
        description: 'One page of social bans.',
        schema: banListSchema,
      },
    },
  },

  listCheatBans: {
    summary: 'List the cheat bans of a device that the caller can see',
    tag: 'Bans',
    description:
      'The cheat bans of the device that the caller can see, newest first. Visibility, paging and `counts` are described under the Bans tag.',
    responses: {
      200: {
        description: 'One page of cheat bans.',
        schema: banListSchema,
      },
    },
  },

  listBans: {
    summary: 'List the bans of every type (or of one, with ?type=) of a device that the caller can see',
    tag: 'Bans',
    description:
      'The bans of every type (or of one, with `type`) of the device that the caller can see, newest first. Visibility, paging and `counts` are described under the Bans tag.',
    responses: {
      200: {
        description: 'One page of bans.',
        schema: banListSchema,
      },
    },
  },

  revokeBan: {
    summary: 'Revoke one of your own bans',
    tag: 'Bans',
    description:
      'Undoes a wrong ban: sets `revoked_at` and `revoke_reason_code` and makes it inactive for ' +
      'everyone at once; it stays in history. Only the publisher that made the ban may revoke it; ' +
      'for anyone else it is a 404, as for a ban that does not exist. Revoking again returns the ' +
      'ban unchanged.',
    notFound: true,
    responses: {
      200: {
        description: 'The revoked ban.',
        schema: revokedBanSchema,
      },
    },
  },

  getEnforcement: {
    summary: 'Whether a device is restricted in this game under your policy, why, and its reputation',
    tag: 'Enforcement',
    description:
      'One call at login or matchmaking. `bans` holds the active bans that apply under your policy, ' +
      'each with `rule`: the policy flags that make it apply. A `game` ban applies when ' +
      '`enforce_game`; a `publisher` ban when `enforce_publisher`; a `global` ban of type T when ' +
      '`enforce_global` and `enforce_T_global`. `reputation.score` is ' +
      'max(0, 100 - sum of count x weight) over the scopes your `rep_include_*` flags include.',
    responses: {
      200: {
        description: 'Whether the device is restricted, why, and its reputation.',
        schema: enforcementSchema,
      },
    },
  },

  getEnforcementBatch: {
    summary: 'The enforcement answer for up to 100 devices (a lobby) at once',
    tag: 'Enforcement',
    description:
      'The enforcement answer for 1 to 100 devices (a lobby), in request order. An invalid id gets ' +
      'an error entry of its own without failing the others.',
    responses: {
      200: {
        description: 'One result per requested id, in request order.',
        schema: enforcementBatchSchema,
      },
    },
  },

  openapi: {
    summary: 'This API described in OpenAPI 3.1',
    tag: 'Documentation',
    description: 'This document: OpenAPI 3.1, generated from the same schemas the handlers validate with.',
    responses: {
      200: {
        description: 'The OpenAPI document.',
        schema: openApiDocumentSchema,
      },
    },
  },
} as const satisfies { [Id in RouteId]: OperationDoc };
export type OperationDocsById = typeof operationDocs;

/** Each route's request spec by id, for the examples' types. */
export type OperationsById = { [R in (typeof routes)[number] as R['id']]: R['request'] };
