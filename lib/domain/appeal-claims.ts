import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { CLAIM_DEFAULT_SECONDS, mayTakeOver, TAKE_OVER_SCOPE } from '@kernel/appeal-claims';
import type { Scope } from '@kernel/scopes';
import * as clock from '../clock';
import type { AppealClaimRequest } from '../model/requests';
import type { Actor, Appeal } from '../model/responses';
import { dynamo, tableName } from '../storage/client';
import { isConditionFailure } from '../storage/failures';
import { appealKey } from '../storage/keys';
import {
  appealReach,
  appealSubject,
  claimedConflict,
  claimInForce,
  copyClaimToEntry,
  decidedConflict,
  holderIdOf,
  partiesOf,
  readAppeal,
  type StoredAppeal,
  type StoredClaim,
} from './appeal-record';
import { toAppealView } from './appeals';
import { recordEvent } from './audit';
import { ConflictError, ForbiddenError, NotFoundError } from './errors';

/**
 * Claims: a moderator holds an open appeal for a while, so that a team does not work one appeal
 * twice. The claim lives on the appeal item (a conditional write on the version read, so of two
 * claims at once one wins and the other is a 409 naming the winner), and a copy on its open queue
 * entry (the queue shows who holds each). While a claim is in force only its holder decides
 * (lib/domain/appeals.ts decideAppeal); a holder of TAKE_OVER_SCOPE (an admin) may take it over
 * or release it. Every new claim, take-over and release is audited; a retry of a request whose
 * event or copy a fault left out writes them (a renewal keeps `claimed_at`, a release keeps the
 * claim with `released_at`, so the retry finds the same event id). Rules: docs/api.md#claims.
 */

/** Who is asking: as the shared chain hands it over. */
export interface Claimant {
  actor: Actor;
  scopes: readonly Scope[];
  games: readonly string[] | null;
}

/** The open appeal the caller's publisher owns (within the key's games), or a 404 / 409. */
const ownedOpenAppeal = async (publisherId: string, appealId: string, caller: Claimant) => {
  const appeal = await readAppeal(appealId);
  if (!appeal || !appealReach(partiesOf(appeal), publisherId, caller.games).owner)
    throw new NotFoundError('No such appeal');
  return appeal;
};

/** The claim's write: conditional on the version read, so a concurrent change fails it. */
const writeClaim = async (appeal: StoredAppeal, claim: StoredClaim): Promise<StoredAppeal | undefined> => {
  const previous = appeal.claim_version ?? 0;
  const version = previous + 1;
  try {
    await dynamo.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: appealKey(appeal.appeal_id),
        UpdateExpression: 'SET #claim = :claim, claim_version = :version',
        ConditionExpression: `#status = :open AND ${
          previous === 0 ? 'attribute_not_exists(claim_version)' : 'claim_version = :previous'
        }`,
        ExpressionAttributeNames: { '#claim': 'claim', '#status': 'status' },
        ExpressionAttributeValues: {
          ':claim': claim,
          ':version': version,
          ':open': 'open',
          ...(previous === 0 ? {} : { ':previous': previous }),
        },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    return undefined;
  }
  return { ...appeal, claim, claim_version: version };
};

/** Attempts of one request against claims changing under it: each reads again and judges anew. */
const ATTEMPTS = 3;
const changedMeanwhile = () => new ConflictError('The claim kept changing while this request ran: try again');

/**
 * Claims an open appeal of the publisher's bans for `duration_seconds` (default 15 minutes, at
 * most an hour), or renews the caller's own claim. Another's claim in force is a 409 naming its
 * holder and its end, unless `take_over` by a holder of TAKE_OVER_SCOPE (else 403). A decided
 * appeal is a 409 naming who decided it and when.
 */
export const claimAppeal = async (
  publisherId: string,
  appealId: string,
  request: AppealClaimRequest,
  caller: Claimant,
): Promise<Appeal> => {
  if (request.take_over === true && !mayTakeOver(caller.scopes))
    throw new ForbiddenError(`Taking over a claim needs the scope ${TAKE_OVER_SCOPE} (an admin)`);
  const me = holderIdOf(caller.actor);
  for (let attempt = 1; ; attempt += 1) {
    const appeal = await ownedOpenAppeal(publisherId, appealId, caller);
    if (appeal.status === 'decided') throw decidedConflict(appeal);
    const nowMs = clock.now();
    const now = new Date(nowMs).toISOString();
    const held = claimInForce(appeal, now);
    const others = held !== undefined && held.holder !== me ? held : undefined;
    if (others && request.take_over !== true) throw claimedConflict(others);
    const claim: StoredClaim = {
      holder: me,
      by: caller.actor,
      // A renewal is the same claim, later: its event is the one recorded when it began.
      claimed_at: held?.holder === me ? held.claimed_at : now,
      until: new Date(nowMs + (request.duration_seconds ?? CLAIM_DEFAULT_SECONDS) * 1000).toISOString(),
      ...(others
        ? { taken_over_from: others.by }
        : held?.taken_over_from
          ? { taken_over_from: held.taken_over_from }
          : {}),
    };
    const claimed = await writeClaim(appeal, claim);
    // Changed since the read (another claim, a decision): judged again on a fresh read.
    if (!claimed) {
      if (attempt < ATTEMPTS) continue;
      throw changedMeanwhile();
    }
    await copyClaimToEntry(claimed);
    await recordEvent(publisherId, `${appealId}\n${claim.claimed_at}`, claim.claimed_at, caller.actor, {
      type: 'appeal.claimed',
      device_id: claimed.device_id,
      appeal: appealSubject(claimed),
      claimed_until: claim.until,
      taken_over_from: claim.taken_over_from ?? null,
    });
    return toAppealView(claimed, 'owner');
  }
};

/**
 * Ends the caller's claim (or, with TAKE_OVER_SCOPE, anyone's), so that another may take the
 * appeal. Nothing in force to release (never claimed, ended, released, decided) answers the appeal
 * as it is; a retry of a release finishes its copy and its event. Another's claim without the
 * scope is a 409 naming its holder.
 */
export const releaseAppealClaim = async (
  publisherId: string,
  appealId: string,
  caller: Claimant,
): Promise<Appeal> => {
  const me = holderIdOf(caller.actor);
  for (let attempt = 1; ; attempt += 1) {
    const appeal = await ownedOpenAppeal(publisherId, appealId, caller);
    const now = new Date(clock.now()).toISOString();
    const held = claimInForce(appeal, now);
    if (!held) {
      // Released by this caller before: the retry of a release whose copy or event a fault left out.
      if (appeal.claim?.released_at !== undefined && appeal.claim.released_by !== undefined)
        await finishRelease(publisherId, appeal, appeal.claim);
      return toAppealView(appeal, 'owner');
    }
    if (held.holder !== me && !mayTakeOver(caller.scopes)) throw claimedConflict(held);
    const released: StoredClaim = { ...held, released_at: now, released_by: caller.actor };
    const done = await writeClaim(appeal, released);
    if (!done) {
      if (attempt < ATTEMPTS) continue;
      throw changedMeanwhile();
    }
    await finishRelease(publisherId, done, released);
    return toAppealView(done, 'owner');
  }
};

const finishRelease = async (publisherId: string, appeal: StoredAppeal, claim: StoredClaim) => {
  await copyClaimToEntry(appeal);
  await recordEvent(
    publisherId,
    `${appeal.appeal_id}\n${claim.claimed_at}`,
    claim.released_at ?? claim.claimed_at,
    claim.released_by ?? claim.by,
    {
      type: 'appeal.released',
      device_id: appeal.device_id,
      appeal: appealSubject(appeal),
      claimed_by: claim.by,
    },
  );
};
