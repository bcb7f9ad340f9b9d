/**
 * The console's address: which view, in Devices which game and device, in Appeals which appeal,
 * in the URL's fragment (`#/start`, `#/device?game=g1&device=d-1`, `#/appeals?appeal=apl_…`, ...),
 * so Back and Forward work and a link can be sent to a colleague. Never a credential: keys and
 * tokens are not in it, ever.
 */

export const views = [
  'start',
  'device',
  'bulk',
  'appeals',
  'policy',
  'audit',
  'keys',
  'webhooks',
  'people',
] as const;
export type View = (typeof views)[number];

export interface Address {
  view: View;
  game?: string | undefined;
  device?: string | undefined;
  /** The appeal open in Appeals. */
  appeal?: string | undefined;
  /** Devices, all games: the games added to those shown (`[]`: all games, none added); absent: one game. */
  games?: string[] | undefined;
}

const isView = (value: string): value is View => (views as readonly string[]).includes(value);

/** An address that names no view (a bare link to the console, or one it does not know) opens Start. */
export const readAddress = (hash = location.hash): Address => {
  const [path = '', query = ''] = hash.replace(/^#\/?/, '').split('?');
  const params = new URLSearchParams(query);
  return {
    view: isView(path) ? path : 'start',
    game: params.get('game') ?? undefined,
    device: params.get('device') ?? undefined,
    appeal: params.get('appeal') ?? undefined,
    games: params.get('games')?.split(',').filter(Boolean),
  };
};

export const addressHash = ({ view, game, device, appeal, games }: Address) => {
  const params = new URLSearchParams();
  if (view === 'device' && game) params.set('game', game);
  if (view === 'device' && game && device) params.set('device', device);
  if (view === 'device' && game && device && games) params.set('games', games.join(','));
  if (view === 'appeals' && appeal) params.set('appeal', appeal);
  const query = params.toString();
  return `#/${view}${query ? `?${query}` : ''}`;
};

/** A new entry in the history (a view or a device opened); `replace` for what refines this one (the game typed). */
export const showAddress = (address: Address, { replace = false } = {}) => {
  // An address that does not mention `games` keeps the all-games choice of the device it names.
  const here = readAddress();
  const keep =
    !('games' in address) &&
    address.view === 'device' &&
    here.view === 'device' &&
    here.device === address.device &&
    here.game === address.game;
  const hash = addressHash(keep ? { ...address, games: here.games } : address);
  if (location.hash === hash) return;
  if (replace) history.replaceState(null, '', hash);
  else history.pushState(null, '', hash);
};
