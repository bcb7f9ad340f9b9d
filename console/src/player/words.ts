import { lookupLocale } from '@kernel/locales';
import type { Schemas } from '../api';
import type { Refusal } from './requests';

/**
 * Everything the player's page says, in each language it speaks, picked by the browser's languages
 * (`navigator.languages`, as the player set them): each tag as given, then its language alone
 * (`de-AT`, then `de`), else English. The texts the publisher wrote (the message, the clause, the
 * facts) come from the API as they are.
 */

type Restriction = Schemas['PlayerRestriction'];
type Statement = NonNullable<Restriction['statement']>;
type Outcome = NonNullable<NonNullable<Restriction['appeal']>['outcome']>;

export interface Words {
  locale: string;
  /** The browser's own tag for that language (`en-GB`): how its dates are written. */
  dateLocale: string;
  title: string;
  intro: (game: string, device: string) => string;
  loading: string;
  none: string;
  ended: string;
  unavailable: string;
  retry: string;
  incomplete: string;
  kind: Record<Restriction['ban_type'], string>;
  reach: Record<Restriction['scope'], string>;
  since: string;
  until: string;
  noEnd: string;
  state: string;
  inForce: string;
  lifted: string;
  why: string;
  terms: string;
  readTerms: string;
  law: string;
  facts: string;
  detection: (automated: boolean) => string;
  decision: Record<Statement['automated_decision'], string>;
  source: Record<Statement['source'], string>;
  redress: string;
  appeal: string;
  reasonLabel: string;
  contactLabel: string;
  send: string;
  sending: string;
  sent: string;
  underReview: (filed: string) => string;
  outcome: (outcome: Outcome, decided: string, newEnd: string | null) => string;
  cannotAppeal: string;
  askForAppealLink: string;
  linkEnds: (when: string) => string;
  /** Why an appeal or the page was refused, past the link's end and a busy service. */
  refused: Record<'not_allowed' | 'gone' | 'conflict' | 'invalid', string>;
}

const en: Words = {
  locale: 'en',
  dateLocale: 'en',
  title: 'Your restrictions',
  intro: (game, device) => `What restricts device ${device} in ${game}, and why.`,
  loading: 'Loading…',
  none: 'Nothing restricts this device in this game.',
  ended: 'This link has ended or is not valid. Ask the game for a new one.',
  unavailable: 'The service is busy. Try again in a moment.',
  retry: 'Try again',
  incomplete: 'This link is incomplete. Open the whole link the game gave you.',
  kind: { cheat: 'Cheating', social: 'Conduct' },
  reach: {
    game: 'Applies in this game',
    publisher: "Applies in all of this publisher's games",
    global: 'Applies in every game that enforces it',
  },
  since: 'Since',
  until: 'Until',
  noEnd: 'No end date',
  state: 'Now',
  inForce: 'In force',
  lifted: 'No longer in force',
  why: 'Why (statement of reasons)',
  terms: 'Our terms',
  readTerms: 'Read this part of the terms',
  law: 'The law',
  facts: 'What happened',
  detection: (automated) =>
    automated ? 'It was detected by automated means.' : 'It was detected without automated means.',
  decision: {
    fully: 'It was decided by automated means, without a person.',
    partially: 'It was decided by a person, with automated help.',
    not: 'It was decided by a person.',
  },
  source: {
    own_initiative: 'We acted on our own initiative.',
    notice: 'We acted on a report we received.',
    trusted_flagger: 'We acted on a report from a trusted flagger.',
    other_notification: 'We acted on a notification we received.',
  },
  redress:
    'You may appeal here, free of charge. You may also turn to a certified out-of-court dispute settlement body or to a court.',
  appeal: 'Appeal',
  reasonLabel: 'Why this is wrong',
  contactLabel: 'How to reach you (optional)',
  send: 'Send appeal',
  sending: 'Sending…',
  sent: 'Your appeal was sent. Its outcome will show here.',
  underReview: (filed) => `Your appeal of ${filed} is being reviewed.`,
  outcome: (outcome, decided, newEnd) =>
    outcome === 'upheld'
      ? `Your appeal was decided on ${decided}: the restriction stays.`
      : outcome === 'overturned'
        ? `Your appeal was decided on ${decided}: the restriction was lifted.`
        : `Your appeal was decided on ${decided}: the restriction now ends ${newEnd ?? 'earlier'}.`,
  cannotAppeal: 'This restriction cannot be appealed.',
  askForAppealLink: 'To appeal, ask the game for a link that lets you appeal.',
  linkEnds: (when) => `This link works until ${when}.`,
  refused: {
    not_allowed: 'This link does not let you appeal. Ask the game for a link that does.',
    gone: 'This restriction is no longer on this page. Reload the page to see it as it is now.',
    conflict:
      'This restriction was appealed already, or can no longer be appealed. Reload the page to see it as it is now.',
    invalid: 'The appeal could not be sent as written: check its text and try again.',
  },
};

const de: Words = {
  locale: 'de',
  dateLocale: 'de',
  title: 'Deine Einschränkungen',
  intro: (game, device) => `Was Gerät ${device} in ${game} einschränkt, und warum.`,
  loading: 'Wird geladen …',
  none: 'Nichts schränkt dieses Gerät in diesem Spiel ein.',
  ended: 'Dieser Link ist abgelaufen oder ungültig. Bitte das Spiel um einen neuen.',
  unavailable: 'Der Dienst ist ausgelastet. Versuche es gleich noch einmal.',
  retry: 'Noch einmal versuchen',
  incomplete: 'Dieser Link ist unvollständig. Öffne den ganzen Link, den das Spiel dir gegeben hat.',
  kind: { cheat: 'Betrug', social: 'Verhalten' },
  reach: {
    game: 'Gilt in diesem Spiel',
    publisher: 'Gilt in allen Spielen dieses Publishers',
    global: 'Gilt in jedem Spiel, das sie durchsetzt',
  },
  since: 'Seit',
  until: 'Bis',
  noEnd: 'Ohne Enddatum',
  state: 'Jetzt',
  inForce: 'In Kraft',
  lifted: 'Nicht mehr in Kraft',
  why: 'Warum (Begründung)',
  terms: 'Unsere Bedingungen',
  readTerms: 'Diesen Teil der Bedingungen lesen',
  law: 'Das Gesetz',
  facts: 'Was geschehen ist',
  detection: (automated) =>
    automated ? 'Es wurde automatisiert erkannt.' : 'Es wurde ohne automatisierte Mittel erkannt.',
  decision: {
    fully: 'Es wurde automatisiert entschieden, ohne einen Menschen.',
    partially: 'Ein Mensch hat entschieden, mit automatisierter Hilfe.',
    not: 'Ein Mensch hat entschieden.',
  },
  source: {
    own_initiative: 'Wir haben aus eigener Initiative gehandelt.',
    notice: 'Wir haben auf eine Meldung hin gehandelt.',
    trusted_flagger: 'Wir haben auf die Meldung eines vertrauenswürdigen Hinweisgebers hin gehandelt.',
    other_notification: 'Wir haben auf eine Mitteilung hin gehandelt.',
  },
  redress:
    'Du kannst hier kostenlos Einspruch einlegen. Du kannst dich auch an eine zertifizierte außergerichtliche Streitbeilegungsstelle oder an ein Gericht wenden.',
  appeal: 'Einspruch',
  reasonLabel: 'Warum das falsch ist',
  contactLabel: 'Wie wir dich erreichen (freiwillig)',
  send: 'Einspruch senden',
  sending: 'Wird gesendet …',
  sent: 'Dein Einspruch wurde gesendet. Das Ergebnis erscheint hier.',
  underReview: (filed) => `Dein Einspruch vom ${filed} wird geprüft.`,
  outcome: (outcome, decided, newEnd) =>
    outcome === 'upheld'
      ? `Über deinen Einspruch wurde am ${decided} entschieden: Die Einschränkung bleibt.`
      : outcome === 'overturned'
        ? `Über deinen Einspruch wurde am ${decided} entschieden: Die Einschränkung wurde aufgehoben.`
        : `Über deinen Einspruch wurde am ${decided} entschieden: Die Einschränkung endet jetzt ${newEnd ?? 'früher'}.`,
  cannotAppeal: 'Gegen diese Einschränkung ist kein Einspruch möglich.',
  askForAppealLink: 'Für einen Einspruch bitte das Spiel um einen Link, der ihn erlaubt.',
  linkEnds: (when) => `Dieser Link gilt bis ${when}.`,
  refused: {
    not_allowed:
      'Mit diesem Link ist kein Einspruch möglich. Bitte das Spiel um einen Link, der ihn erlaubt.',
    gone: 'Diese Einschränkung steht nicht mehr auf dieser Seite. Lade die Seite neu, um den aktuellen Stand zu sehen.',
    conflict:
      'Gegen diese Einschränkung wurde schon Einspruch eingelegt, oder er ist nicht mehr möglich. Lade die Seite neu, um den aktuellen Stand zu sehen.',
    invalid: 'Der Einspruch konnte so nicht gesendet werden: Prüfe den Text und versuche es noch einmal.',
  },
};

const fr: Words = {
  locale: 'fr',
  dateLocale: 'fr',
  title: 'Vos restrictions',
  intro: (game, device) => `Ce qui restreint l’appareil ${device} dans ${game}, et pourquoi.`,
  loading: 'Chargement…',
  none: 'Rien ne restreint cet appareil dans ce jeu.',
  ended: 'Ce lien a expiré ou n’est pas valide. Demandez-en un nouveau au jeu.',
  unavailable: 'Le service est occupé. Réessayez dans un instant.',
  retry: 'Réessayer',
  incomplete: 'Ce lien est incomplet. Ouvrez le lien entier que le jeu vous a donné.',
  kind: { cheat: 'Triche', social: 'Comportement' },
  reach: {
    game: 'S’applique dans ce jeu',
    publisher: 'S’applique dans tous les jeux de cet éditeur',
    global: 'S’applique dans chaque jeu qui l’applique',
  },
  since: 'Depuis',
  until: 'Jusqu’au',
  noEnd: 'Sans date de fin',
  state: 'Maintenant',
  inForce: 'En vigueur',
  lifted: 'Plus en vigueur',
  why: 'Pourquoi (exposé des motifs)',
  terms: 'Nos conditions',
  readTerms: 'Lire cette partie des conditions',
  law: 'La loi',
  facts: 'Ce qui s’est passé',
  detection: (automated) =>
    automated
      ? 'Cela a été détecté par des moyens automatisés.'
      : 'Cela a été détecté sans moyens automatisés.',
  decision: {
    fully: 'La décision a été prise par des moyens automatisés, sans personne.',
    partially: 'Une personne a décidé, avec une aide automatisée.',
    not: 'Une personne a décidé.',
  },
  source: {
    own_initiative: 'Nous avons agi de notre propre initiative.',
    notice: 'Nous avons agi à la suite d’un signalement.',
    trusted_flagger: 'Nous avons agi à la suite du signalement d’un signaleur de confiance.',
    other_notification: 'Nous avons agi à la suite d’une notification.',
  },
  redress:
    'Vous pouvez faire appel ici, gratuitement. Vous pouvez aussi saisir un organisme certifié de règlement extrajudiciaire des litiges ou un tribunal.',
  appeal: 'Faire appel',
  reasonLabel: 'Pourquoi c’est une erreur',
  contactLabel: 'Comment vous joindre (facultatif)',
  send: 'Envoyer l’appel',
  sending: 'Envoi…',
  sent: 'Votre appel a été envoyé. Sa décision s’affichera ici.',
  underReview: (filed) => `Votre appel du ${filed} est en cours d’examen.`,
  outcome: (outcome, decided, newEnd) =>
    outcome === 'upheld'
      ? `Votre appel a été tranché le ${decided} : la restriction est maintenue.`
      : outcome === 'overturned'
        ? `Votre appel a été tranché le ${decided} : la restriction a été levée.`
        : `Votre appel a été tranché le ${decided} : la restriction prend désormais fin le ${newEnd ?? 'plus tôt'}.`,
  cannotAppeal: 'Cette restriction ne peut pas faire l’objet d’un appel.',
  askForAppealLink: 'Pour faire appel, demandez au jeu un lien qui le permet.',
  linkEnds: (when) => `Ce lien fonctionne jusqu’au ${when}.`,
  refused: {
    not_allowed: 'Ce lien ne permet pas de faire appel. Demandez au jeu un lien qui le permet.',
    gone: 'Cette restriction n’est plus sur cette page. Rechargez la page pour la voir telle qu’elle est.',
    conflict:
      'Cette restriction a déjà fait l’objet d’un appel, ou ne peut plus en faire l’objet. Rechargez la page pour la voir telle qu’elle est.',
    invalid: 'L’appel n’a pas pu être envoyé tel quel : vérifiez son texte et réessayez.',
  },
};

/** The languages the page speaks; the first is the fallback. */
export const PAGE_LANGUAGES: readonly Words[] = [en, de, fr];

/**
 * The page's words for the browser's languages, in the player's order of preference: the kernel's
 * RFC 4647 lookup (`de-AT`, then `de`), English when none matches; dates in the browser's own tag
 * for that language (`en-GB` writes 1 June, `en-US` June 1).
 */
export const wordsFor = (languages: readonly string[]): Words => {
  const available = PAGE_LANGUAGES.map((words) => words.locale);
  const locale = lookupLocale(languages, available, en.locale);
  const words = PAGE_LANGUAGES.find((w) => w.locale === locale) ?? en;
  const dateLocale = languages.find((tag) => lookupLocale([tag], available, '') === locale);
  return dateLocale === undefined ? words : { ...words, dateLocale };
};

/** What the page says of a refusal, in its language. */
export const refusalText = (words: Words, refusal: Refusal): string =>
  refusal.kind === 'ended'
    ? words.ended
    : refusal.kind === 'unavailable'
      ? words.unavailable
      : words.refused[refusal.kind];

/** A time in the page's language, in the player's time zone. */
export const dateIn = (words: Words, iso: string) =>
  new Intl.DateTimeFormat(words.dateLocale, { dateStyle: 'long', timeStyle: 'short' }).format(new Date(iso));
