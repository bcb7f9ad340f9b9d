import { createHash, randomBytes } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { PLAYER_LINK_DEFAULT_SECONDS, PLAYER_LINK_PREFIX, playerPagePath } from '@kernel/player-links';
import { judgeBans } from '@kernel/policy-rules';
import type { Scope } from '@kernel/scopes';
import * as clock from '../clock';
import { actorFromStored } from '../model/actors';
import type { CreatePlayerLinkRequest, PlayerAppealRequest } from '../model/requests';
import type {
  Actor,
  Appeal,
  PlayerAppeal,
  PlayerAppealCreation,
  PlayerLinkCreation,
  PlayerPage,
  PlayerRestriction,
} from '../model/responses';
import { dynamo, tableName } from '../storage/client';
import { appealIdOf, playerLinkKey } from '../storage/keys';
import { TIME_TO_LIVE_ATTRIBUTE } from '../storage/table';
import { keyInForce } from './api-keys';
import { readAppeal, type StoredAppeal } from './appeal-record';
import { fileAppeal, toAppealView } from './appeals';
import { localiseBan } from './ban-locales';
import type { Ban } from './ban-record';
import { visibleBans } from './bans';
import { ForbiddenError, IntegrityError, UnauthorizedError } from './errors';
import { getPolicy } from './policy';

/**
 * The player's page (kernel/player-links.ts): a link minted by a key for one device in one game,
 * which opens that device's restrictions in that game, their statements of reasons and their
 * appeals, and nothing else. The link is a 256-bit random secret; the table keeps only its SHA-256
 * (the item `PLAYERLINK#<hash>` / `LINK`, deleted by its time to live after it ends), so neither
 * the table nor a log holds what opens a page. Everything the page reads is named by the link's
 * item, never by the request: no device, game or publisher the player sends is ever read. A link
 * ends when it expires, or when the key that minted it is revoked or expires.
 * Why a stored secret rather than a signed token, and what the page shows: docs/player-rights.md.
 */

/** A link as stored: whose, for what, until when, and who minted it. */
export interface PlayerLink {
  link_id: string;
  publisher_id: string;
  game_id: string;
  device_id: string;
  appeal: boolean;
  created_at: string;
  expires_at: string;
  created_by: Actor;
}

const hashOf = (secret: string) => createHash('sha256').update(secret).digest('hex');

/**
 * Mints a link for `device_id` in the caller's game. A link that lets the player appeal needs the
 * scope a key files appeals with. Nothing about the device is read: a device with no restriction
 * gets a page that says so, and the minter learns nothing from the answer.
 */
export const mintPlayerLink = async (
  publisherId: string,
  gameId: string,
  request: CreatePlayerLinkRequest,
  minter: { actor: Actor; scopes: readonly Scope[] },
): Promise<PlayerLinkCreation> => {
  const appeal = request.appeal ?? false;
  if (appeal && !minter.scopes.includes('appeals:write'))
    throw new ForbiddenError('A link that lets the player appeal needs the scope appeals:write');
  const nowMs = clock.now();
  const expiresMs = nowMs + (request.expires_in_seconds ?? PLAYER_LINK_DEFAULT_SECONDS) * 1000;
  const secret = `${PLAYER_LINK_PREFIX}${randomBytes(32).toString('base64url')}`;
  const hash = hashOf(secret);
  const link: PlayerLink = {
    // The hash's head names the link in appeals and logs: it opens nothing.
    link_id: `pl_${hash.slice(0, 20)}`,
    publisher_id: publisherId,
    game_id: gameId,
    device_id: request.device_id,
    appeal,
    created_at: new Date(nowMs).toISOString(),
    expires_at: new Date(expiresMs).toISOString(),
    created_by: minter.actor,
  };
  await dynamo.send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...playerLinkKey(hash), ...link, [TIME_TO_LIVE_ATTRIBUTE]: Math.ceil(expiresMs / 1000) },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  return {
    link_id: link.link_id,
    secret,
    path: playerPagePath(secret),
    device_id: link.device_id,
    game_id: link.game_id,
    appeal,
    expires_at: link.expires_at,
  };
};

const linkFromItem = (item: Record<string, unknown>): PlayerLink => {
  const { link_id, publisher_id, game_id, device_id, appeal, created_at, expires_at } = item;
  const createdBy = actorFromStored(item.created_by);
  if (
    typeof link_id !== 'string' ||
    typeof publisher_id !== 'string' ||
    typeof game_id !== 'string' ||
    typeof device_id !== 'string' ||
    typeof appeal !== 'boolean' ||
    typeof created_at !== 'string' ||
    typeof expires_at !== 'string' ||
    !createdBy
  )
    throw new IntegrityError('stored player link is malformed');
  return { link_id, publisher_id, game_id, device_id, appeal, created_at, expires_at, created_by: createdBy };
};

/**
 * The link a secret opens, if it is one and has not ended. Unknown, altered and ended secrets are
 * the same 401, so that a guess learns nothing; the time to live deletes ended links late, so the
 * expiry is checked here, not left to it.
 */
export const openPlayerLink = async (secret: string): Promise<PlayerLink> => {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName(), Key: playerLinkKey(hashOf(secret)), ConsistentRead: true }),
  );
  const link = Item ? linkFromItem(Item) : undefined;
  const ended = () => new UnauthorizedError('This link is unknown or has ended: ask the game for a new one');
  if (!link || link.expires_at <= new Date(clock.now()).toISOString()) throw ended();
  // A link stands for the key that minted it only while that key does: revoking a leaked key ends
  // its links at once, not when they expire.
  const minter = link.created_by;
  if (minter.type === 'key' && minter.key_id !== null && !(await keyInForce(minter.key_id))) throw ended();
  return link;
};

/** The player's view of an appeal: its progress and outcome, never the moderator or their note. */
const playerAppealOf = (appeal: Appeal): PlayerAppeal => ({
  appeal_id: appeal.appeal_id,
  status: appeal.status,
  created_at: appeal.created_at,
  outcome: appeal.decision?.outcome ?? null,
  decided_at: appeal.decision?.decided_at ?? null,
  player_message: appeal.decision?.player_message ?? null,
  expires_at: appeal.decision?.expires_at ?? null,
});

/** The publisher's own appeal of a ban, if the ban names one. */
const appealOfBan = async (ban: Ban, publisherId: string): Promise<StoredAppeal | undefined> => {
  const id = appealIdOf(ban.ban_id, publisherId);
  if (ban.appeals?.[publisherId] === undefined && ban.appeal_id !== id) return undefined;
  return readAppeal(id);
};

/**
 * What the page shows: the device's bans the link's publisher enforces in the link's game now,
 * and those its appeals concern (so a ban lifted on appeal still shows the outcome). Each with its
 * statement of reasons and message, in the player's language (`wanted`) where the ban has it;
 * never the ban's owner, its reason code, details or creator.
 */
export const playerPage = async (link: PlayerLink, wanted: readonly string[] = []): Promise<PlayerPage> => {
  const [policy, bans] = await Promise.all([
    getPolicy(link.publisher_id),
    visibleBans(link.publisher_id, link.game_id, link.device_id),
  ]);
  const now = new Date(clock.now()).toISOString();
  const verdicts = judgeBans(policy, bans, now);
  const shown = bans
    .map((ban, i) => ({ ban, inForce: verdicts[i]?.applies === true }))
    .filter(({ ban, inForce }) => inForce || ban.appeals?.[link.publisher_id] !== undefined);
  const restrictions = await Promise.all(
    shown.map(async ({ ban, inForce }): Promise<PlayerRestriction> => {
      const appeal = await appealOfBan(ban, link.publisher_id);
      // In the player's language where the ban has a translation (lib/domain/ban-locales.ts).
      const texts = localiseBan(ban, wanted);
      return {
        ban_id: ban.ban_id,
        ban_type: ban.ban_type,
        scope: ban.scope,
        created_at: ban.created_at,
        expires_at: ban.expires_at,
        in_force: inForce,
        message_locale: texts.message_locale,
        player_message: texts.player_message,
        statement: texts.statement,
        can_appeal: link.appeal && inForce && (ban.appealable ?? true) && appeal === undefined,
        appeal: appeal ? playerAppealOf(toAppealView(appeal, 'filer')) : null,
      };
    }),
  );
  return {
    device_id: link.device_id,
    game_id: link.game_id,
    link_expires_at: link.expires_at,
    can_appeal: link.appeal,
    evaluated_at: now,
    restrictions,
  };
};

/**
 * The player's appeal, filed as the link's publisher from the link's game, recorded as filed
 * through the link (its creator, the key that minted it, is the actor). One per ban: the same
 * link filing again answers the first appeal (`idempotent_ok`), any other filing is a 409.
 */
export const filePlayerAppeal = async (
  link: PlayerLink,
  request: PlayerAppealRequest,
): Promise<PlayerAppealCreation> => {
  if (!link.appeal) throw new ForbiddenError('This link does not let the player appeal');
  const filed = await fileAppeal(
    link.publisher_id,
    link.game_id,
    {
      device_id: link.device_id,
      ban_id: request.ban_id,
      message: request.message,
      ...(request.contact === undefined ? {} : { contact: request.contact }),
      // A repeat through the same link is the same appeal: a retry or a second tap files nothing new.
      idempotency_key: link.link_id,
    },
    link.created_by,
    link.link_id,
  );
  return { result: filed.result, appeal: playerAppealOf(filed) };
};
