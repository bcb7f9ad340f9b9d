import { wantedLocales } from '@kernel/locales';
import { getEnforcementBatch } from '../lib/domain/enforcement';
import { httpRoute } from '../lib/http/chain';
import { languageHeaders } from '../lib/http/languages';
import { getEnforcementBatchRoute } from '../lib/routes';

export const handler = httpRoute(
  getEnforcementBatchRoute,
  async ({ publisherId, gameId, body, query, acceptLanguage }) => {
    const batch = await getEnforcementBatch(
      publisherId,
      gameId,
      body.device_ids,
      wantedLocales({ locale: query.locale, acceptLanguage }),
    );
    const locales = batch.results.flatMap((result) =>
      'bans' in result ? result.bans.map((ban) => ban.message_locale) : [],
    );
    return { body: batch, headers: languageHeaders(locales) };
  },
);
