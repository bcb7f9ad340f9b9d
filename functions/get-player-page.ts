import { wantedLocales } from '@kernel/locales';
import { openPlayerLink, playerPage } from '../lib/domain/player-links';
import { httpRoute } from '../lib/http/chain';
import { languageHeaders } from '../lib/http/languages';
import { getPlayerPageRoute } from '../lib/routes';

export const handler = httpRoute(getPlayerPageRoute, async ({ playerLink, query, acceptLanguage }) => {
  const link = await openPlayerLink(playerLink);
  const page = await playerPage(link, wantedLocales({ locale: query.locale, acceptLanguage }));
  return { body: page, headers: languageHeaders(page.restrictions.map((r) => r.message_locale)) };
});
