/** Said instead of an answer when the documents do not cover the question; it costs the owner nothing. */
export const REFUSAL_TEXT =
  "I'm sorry, I couldn't find an answer to that in the documents I have. Could you rephrase the question, or ask about something else?";
