/**
 * SQL of the owner's reports that both drivers speak the same: a day's counts over the chat logs, and the same sums
 * from the rollups the retention purge and erasures leave. Each driver writes its own day column (SQLite's date(),
 * PostgreSQL's to_char over the same shifted seconds) and places its own parameters.
 */
export const CHAT_DAY_COUNTS = `COUNT(*) AS questions,
  COUNT(CASE WHEN refused = 0 THEN 1 END) AS answers, COUNT(CASE WHEN refused = 1 THEN 1 END) AS refusals,
  SUM(prompt_tokens + completion_tokens) AS tokens,
  COUNT(CASE WHEN rating = 1 THEN 1 END) AS rated_up, COUNT(CASE WHEN rating = 0 THEN 1 END) AS rated_down,
  COUNT(correction_id) AS corrections_served`;

export const ROLLUP_DAY_SUMS = `SUM(questions) AS questions, SUM(answers) AS answers, SUM(refusals) AS refusals, SUM(tokens) AS tokens,
  SUM(rated_up) AS rated_up, SUM(rated_down) AS rated_down, SUM(corrections_served) AS corrections_served`;
