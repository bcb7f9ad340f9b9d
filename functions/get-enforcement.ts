import { wantedLocales } from '@kernel/locales';
import { getDeviceEnforcement } from '../lib/domain/enforcement';
import { httpRoute } from '../lib/http/chain';
import { languageHeaders } from '../lib/http/languages';
import { getEnforcementRoute } from '../lib/routes';

export const handler = httpRoute(
  getEnforcementRoute,
  async ({ publisherId, gameId, path, query, acceptLanguage }) => {
    const enforcement = await getDeviceEnforcement(
      publisherId,
      gameId,
      path.device_id,
      wantedLocales({ locale: query.locale, acceptLanguage }),
    );
    return { body: enforcement, headers: languageHeaders(enforcement.bans.map((ban) => ban.message_locale)) };
  },
);
