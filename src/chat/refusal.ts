import { visitorLanguage } from "../i18n/visitor-language.ts";
import { type MessageLang, visitorMessages } from "../shared/visitor-messages.ts";

export { visitorLanguage };

/** Said instead of an answer when the documents do not cover the question; it costs the owner nothing. (English) */
export const REFUSAL_TEXT = visitorMessages("en").refusal;

/** The refusal a visitor reads: the owner's own text when set (in every language), else docchat's in `lang`. */
export function refusalText(deployment: { refusalText: string | null }, lang: MessageLang): string {
  return deployment.refusalText?.trim() ? deployment.refusalText : visitorMessages(lang).refusal;
}
