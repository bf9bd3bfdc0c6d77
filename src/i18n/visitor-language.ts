import { detectLanguage } from "../rag/terms.ts";
import { isMessageLang, type MessageLang } from "../shared/visitor-messages.ts";

/**
 * The language docchat speaks to a visitor in: the one the client asked for (the native stream's `lang`), else the
 * question's own when it is clear, else the deployment's first pinned language, else English. Only languages docchat
 * has messages for count; a question in another one gets English.
 */
export function visitorLanguage(input: { lang?: string; question: string; pinned?: readonly string[] }): MessageLang {
  const asked = input.lang?.trim().toLowerCase().split(/[-_]/)[0];
  if (isMessageLang(asked)) return asked;
  const detected = detectLanguage(input.question);
  if (detected.reliable && isMessageLang(detected.lang)) return detected.lang;
  const pinned = input.pinned?.find(isMessageLang);
  if (pinned) return pinned;
  return isMessageLang(detected.lang) && detected.confidence > 0 ? detected.lang : "en";
}
