import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { GamesUsed } from '../model/responses';
import { dynamo, tableName } from '../storage/client';
import { gamesUsedKey } from '../storage/keys';
import type { ChangeEvent } from './change-events';

/**
 * The games each publisher has made bans in (`GET /v1/games`), so the console can flag a Game ID
 * no ban of the publisher was ever made in (a typo answers "not banned" as calmly as a clean
 * device does). One string set per publisher, added to by the dispatcher from `ban.created`
 * events: off the create's path (a create makes no more storage calls), and a set's ADD is the
 * same however often a batch is handed on again. A game stays once used: revokes and erasures
 * do not take it out.
 */

/** Adds each created ban's game to its publisher's set: one UpdateItem per publisher in the batch. */
export const noteGamesUsed = async (events: readonly ChangeEvent[]) => {
  const byPublisher = new Map<string, Set<string>>();
  for (const event of events) {
    if (event.type !== 'ban.created' || !('ban' in event)) continue;
    const { publisher_id, game_id } = event.ban;
    const games = byPublisher.get(publisher_id) ?? new Set<string>();
    games.add(game_id);
    byPublisher.set(publisher_id, games);
  }
  await Promise.all(
    [...byPublisher].map(([publisherId, games]) =>
      dynamo.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: gamesUsedKey(publisherId),
          UpdateExpression: 'ADD games :games',
          ExpressionAttributeValues: { ':games': games },
        }),
      ),
    ),
  );
};

/** The publisher's games, sorted; a key bound to games sees those of them it holds. One read. */
export const listGamesUsed = async (
  publisherId: string,
  boundGames: readonly string[] | null,
): Promise<GamesUsed> => {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName(), Key: gamesUsedKey(publisherId), ConsistentRead: true }),
  );
  const stored = Item?.games instanceof Set ? [...(Item.games as Set<unknown>)].map(String) : [];
  const games = boundGames === null ? stored : stored.filter((game) => boundGames.includes(game));
  return { games: games.sort() };
};
