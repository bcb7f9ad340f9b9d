/**
 * The console's address: which view, in Devices and Bulk which game, in Devices which device, in
 * Appeals which appeal, in the URL's fragment (`#/start`, `#/device?game=g1&device=d-1`,
 * `#/bulk?game=g1`, `#/appeals?appeal=apl_…`, ...), so Back and Forward work and a link can be sent to a colleague. Never a credential: keys and
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
  'transparency',
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
  /** The audit trail's filters (`#/audit?actor=…&from=2026-11-28`); absent: none. */
  audit?: AuditFilters | undefined;
}

/**
 * The audit trail's filters as the address holds them: who (a key id or a person's `sub`), the
 * device, the event type, and a range of days (`YYYY-MM-DD`, both included, in the moderator's
 * own time zone), each absent or non-empty.
 */
export interface AuditFilters {
  actor?: string | undefined;
  device?: string | undefined;
  type?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
}
export const auditFilterNames = ['actor', 'device', 'type', 'from', 'to'] as const;

const readAuditFilters = (params: URLSearchParams): AuditFilters => {
  const filters: AuditFilters = {};
  for (const name of auditFilterNames) {
    const value = params.get(name);
    if (value) filters[name] = value;
  }
  return filters;
};

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
    ...(path === 'audit' ? { audit: readAuditFilters(params) } : {}),
  };
};

export const addressHash = ({ view, game, device, appeal, games, audit }: Address) => {
  const params = new URLSearchParams();
  // The game is in the address of the views that use one.
  if ((view === 'device' || view === 'bulk') && game) params.set('game', game);
  if (view === 'device' && game && device) params.set('device', device);
  if (view === 'device' && game && device && games) params.set('games', games.join(','));
  if (view === 'appeals' && appeal) params.set('appeal', appeal);
  if (view === 'audit' && audit)
    for (const name of auditFilterNames) {
      const value = audit[name];
      if (value) params.set(name, value);
    }
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
  // Nor does one of the audit trail that names no filters drop those the address holds (a reload).
  const keepFilters = !('audit' in address) && address.view === 'audit' && here.view === 'audit';
  const hash = addressHash(
    keep ? { ...address, games: here.games } : keepFilters ? { ...address, audit: here.audit } : address,
  );
  if (location.hash === hash) return;
  if (replace) history.replaceState(null, '', hash);
  else history.pushState(null, '', hash);
};
