/**
 * The player's page: a game server (or the client package) mints a short-lived link for one device
 * in one game, the player opens it, and the page shows that device's restrictions in that game and
 * lets the player appeal them. The link's secret rides in the URL's fragment, which browsers never
 * send to a server (no access log, proxy or Referer sees it), and the page hands it to the API in
 * one header. The API, the page and the client package read these facts from here.
 */

/** Where the page is served, beside the console. */
export const PLAYER_PAGE_PATH = '/player/';

/** The header the page sends the link's secret in. */
export const PLAYER_LINK_HEADER = 'X-Player-Link';

/** A link's secret: our prefix and 32 random bytes in base64url (256 bits: never guessed). */
export const PLAYER_LINK_PREFIX = 'bpl_';
export const PLAYER_LINK_PATTERN = /^bpl_[A-Za-z0-9_-]{43}$/;

/** How long a link lasts: an hour unless the minter says otherwise, from a minute to a day. */
export const PLAYER_LINK_DEFAULT_SECONDS = 3600;
export const PLAYER_LINK_MIN_SECONDS = 60;
export const PLAYER_LINK_MAX_SECONDS = 86_400;

/** The page's address for a link: the secret in the fragment, never in the path or the query. */
export const playerPagePath = (secret: string) => `${PLAYER_PAGE_PATH}#${secret}`;

/** The secret a page address carries in its fragment (`#bpl_…`), or undefined. */
export const secretOfFragment = (hash: string): string | undefined => {
  const secret = hash.startsWith('#') ? hash.slice(1) : hash;
  return PLAYER_LINK_PATTERN.test(secret) ? secret : undefined;
};
