import { isMessageLang, type MessageLang, visitorMessages } from "../i18n/visitor-messages.ts";
import { detectLanguage } from "../rag/terms.ts";

/** Said instead of an answer when the documents do not cover the question; it costs the owner nothing. (English) */
export const REFUSAL_TEXT = visitorMessages("en").refusal;

/**
 * The language docchat speaks to a visitor in: the one the client asked for (the native stream's `lang`), else the
 * question's own when it is clear, else the deployment's first pinned language, else English. Only languages docchat
 * has messages for count; a question in another one gets English.
 */
export function visitorLanguage(input: { lang?: string; question: string; pinned?: string[] }): MessageLang {
  const asked = input.lang?.trim().toLowerCase().split(/[-_]/)[0];
  if (isMessageLang(asked)) return asked;
  const detected = detectLanguage(input.question);
  if (detected.reliable && isMessageLang(detected.lang)) return detected.lang;
  const pinned = input.pinned?.find(isMessageLang);
  if (pinned) return pinned;
  return isMessageLang(detected.lang) && detected.confidence > 0 ? detected.lang : "en";
}

/** The refusal a visitor reads: the owner's own text when set (in every language), else docchat's in `lang`. */
export function refusalText(deployment: { refusalText: string | null }, lang: MessageLang): string {
  return deployment.refusalText?.trim() ? deployment.refusalText : visitorMessages(lang).refusal;
}
