import { wantedLocales } from '@kernel/locales';
import { readFeed } from '../lib/domain/feed';
import { httpRoute } from '../lib/http/chain';
import { languageHeaders } from '../lib/http/languages';
import { listEventsRoute } from '../lib/routes';

export const handler = httpRoute(
  listEventsRoute,
  async ({ publisherId, gameId, query, caller, acceptLanguage }) => {
    const page = await readFeed(
      publisherId,
      gameId,
      query,
      caller.games,
      wantedLocales({ locale: query.locale, acceptLanguage }),
    );
    const locales = page.items.flatMap((event) =>
      'ban' in event && event.ban.statement !== null ? [event.ban.message_locale] : [],
    );
    return { body: page, headers: languageHeaders(locales) };
  },
);
