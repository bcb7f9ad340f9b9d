import { useEffect, useRef, useState } from 'preact/hooks';
import type { Ban, Call } from './api';
import { loadAllBans, type OpenDevice } from './device';
import { errorMessage, type Message } from './ui';

/**
 * The device's bans in each game shown, every page, each game asked on its own and in parallel,
 * its answer kept the moment it arrives. useRequest keeps one question at a time; these are one
 * per game, so the reading they belong to is kept here: an answer about the previous device (or
 * from before a change) never lands under this one.
 */

export type GameAnswer = { ok: true; bans: Ban[]; complete: boolean } | { ok: false; message: Message };

export const useGameListings = (
  call: Call,
  device: OpenDevice,
  version: number,
  games: readonly string[],
) => {
  const [answers, setAnswers] = useState<Record<string, GameAnswer>>({});
  // Which reading of the device the answers belong to, and the games already asked in it.
  const round = useRef({ n: 0, asked: new Set<string>() });

  useEffect(() => {
    round.current = { n: round.current.n + 1, asked: new Set() };
    setAnswers({});
    // Gone or read again: whatever is still on its way answers an older question.
    return () => {
      round.current = { n: round.current.n + 1, asked: new Set() };
    };
  }, [device, version]);

  /** A game's listing (every page); its row shows the answer the moment it arrives. */
  const ask = (game: string) => {
    const { n, asked } = round.current;
    asked.add(game);
    void loadAllBans(call, game, device.deviceId).then(({ bans, answer }) => {
      if (n !== round.current.n) return;
      const result: GameAnswer = bans
        ? { ok: true, bans, complete: answer !== null }
        : { ok: false, message: answer && errorMessage(answer) };
      setAnswers((now) => ({ ...now, [game]: result }));
    });
  };
  // Each game not yet asked in this reading, in parallel with the others.
  useEffect(() => {
    for (const game of games) if (!round.current.asked.has(game)) ask(game);
  }, [device, version, games.join(',')]);

  /** A game whose listing failed, asked again. */
  const retry = (game: string) => {
    setAnswers(({ [game]: _failed, ...others }) => others);
    ask(game);
  };
  return { answers, retry };
};
