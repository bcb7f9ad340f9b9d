import { wantedLocales } from '@kernel/locales';
import { listCheatBans } from '../lib/domain/bans';
import { httpRoute } from '../lib/http/chain';
import { languageHeaders } from '../lib/http/languages';
import { listCheatBansRoute } from '../lib/routes';

export const handler = httpRoute(
  listCheatBansRoute,
  async ({ publisherId, gameId, path, query, acceptLanguage }) => {
    const list = await listCheatBans(
      publisherId,
      gameId,
      path.device_id,
      query,
      wantedLocales({ locale: query.locale, acceptLanguage }),
    );
    return { body: list, headers: languageHeaders(list.items.map((ban) => ban.message_locale)) };
  },
);
