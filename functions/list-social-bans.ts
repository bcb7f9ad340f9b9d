import { wantedLocales } from '@kernel/locales';
import { listSocialBans } from '../lib/domain/bans';
import { httpRoute } from '../lib/http/chain';
import { languageHeaders } from '../lib/http/languages';
import { listSocialBansRoute } from '../lib/routes';

export const handler = httpRoute(
  listSocialBansRoute,
  async ({ publisherId, gameId, path, query, acceptLanguage }) => {
    const list = await listSocialBans(
      publisherId,
      gameId,
      path.device_id,
      query,
      wantedLocales({ locale: query.locale, acceptLanguage }),
    );
    return { body: list, headers: languageHeaders(list.items.map((ban) => ban.message_locale)) };
  },
);
