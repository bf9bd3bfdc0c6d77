import { type ChatLogFilter, ROLLUP_BUCKET_MS } from "../contract/owner-insight.contract.ts";

/**
 * SQL that both drivers speak the same (issue 22): the owner's conversation list and its filters, the turn view,
 * content-gap candidates, report rollups, and what purging and "no transcripts" leave of a turn. Each driver places its
 * own parameters (`?1`, `$1`) and its own substring function; nothing here is engine syntax.
 */
/** A lead names the turn it followed, or only its conversation. */
const HANDED_OFF = `EXISTS (SELECT 1 FROM leads l WHERE l.deployment_id = c.deployment_id
  AND (l.chat_log_id = c.id OR l.conversation_id = c.conversation_id))`;

/** The turn conditions of a filter, as SQL over chat_logs `c` with its parameters (both engines use this text). */
export function filterSql(
  f: ChatLogFilter,
  sql: { param: (v: string | number) => string; contains: (haystack: string, needle: string) => string },
): string {
  const { param } = sql;
  const where: string[] = [];
  if (f.refused) where.push("c.refused = 1");
  if (f.ratedDown) where.push("c.rating = 0");
  if (f.handedOff) where.push(HANDED_OFF);
  if (f.fromMs !== undefined) where.push(`c.created_at >= ${param(f.fromMs)}`);
  if (f.toMs !== undefined) where.push(`c.created_at < ${param(f.toMs)}`);
  if (f.text) {
    const p = param(f.text.toLowerCase());
    where.push(`(${sql.contains("c.question", p)} OR ${sql.contains("c.answer", p)})`);
  }
  return where.length ? where.join(" AND ") : "1 = 1";
}

/**
 * Conversations matching a filter (a conversation matches when any of its turns does), newest activity first.
 * `$D` is the deployment, `$B` the page cursor and `$L` the limit; `where` comes from filterSql.
 */
export const conversationsSql = (where: string, d: string, before: string, limit: string) => `
  WITH m AS (SELECT DISTINCT c.conversation_id FROM chat_logs c WHERE c.deployment_id = ${d} AND ${where}),
  g AS (
    SELECT c.conversation_id, MIN(c.id) AS first_id, MAX(c.id) AS last_id, COUNT(*) AS turns, SUM(c.refused) AS refused,
           SUM(CASE WHEN c.rating = 0 THEN 1 ELSE 0 END) AS rated_down, MIN(c.created_at) AS started_at,
           MAX(c.created_at) AS last_at, MAX(c.visitor_email) AS visitor_email
      FROM chat_logs c WHERE c.deployment_id = ${d} AND c.conversation_id IN (SELECT conversation_id FROM m)
     GROUP BY c.conversation_id)
  SELECT g.conversation_id, f.question AS first_question, g.turns, g.refused, g.rated_down, g.visitor_email, g.started_at,
         g.last_at, g.last_id,
         EXISTS (SELECT 1 FROM leads l WHERE l.deployment_id = ${d} AND l.conversation_id = g.conversation_id) AS handed_off
    FROM g JOIN chat_logs f ON f.id = g.first_id
   WHERE g.last_id < ${before}
   ORDER BY g.last_id DESC LIMIT ${limit}`;

export const TURN_COLS = `c.id, c.question, c.search_query, c.answer, c.sources, c.citations, c.refused, c.weak, c.rating,
  c.correction_id, (SELECT MAX(k.id) FROM corrections k WHERE k.chat_log_id = c.id AND k.active = 1) AS corrected_by,
  c.prompt_tokens + c.completion_tokens AS tokens, c.visitor_email, c.endpoint, c.created_at`;

export const GAP_SQL = (d: string, since: string, limit: string) => `
  SELECT c.id, c.question, c.created_at, c.refused, c.weak, CASE WHEN c.rating = 0 THEN 1 ELSE 0 END AS rated_down,
         CASE WHEN ${HANDED_OFF} THEN 1 ELSE 0 END AS handed_off
    FROM chat_logs c
   WHERE c.deployment_id = ${d} AND c.created_at >= ${since} AND c.question <> '' AND c.correction_id IS NULL
     AND (c.refused = 1 OR c.weak = 1 OR c.rating = 0 OR ${HANDED_OFF})
   ORDER BY c.id DESC LIMIT ${limit}`;

/**
 * The report counts of chat logs matching `where` (over `c`), added into report_rollups per quarter hour. Written
 * for both engines: ON CONFLICT adds to what an earlier purge rolled up (the SELECT's WHERE lets SQLite parse the upsert).
 */
export const rollupSql = (where: string) => `
  INSERT INTO report_rollups (deployment_id, bucket, questions, answers, refusals, tokens, rated_up, rated_down, corrections_served)
  SELECT c.deployment_id, c.created_at - (c.created_at % ${ROLLUP_BUCKET_MS}) AS bucket, COUNT(*),
         SUM(CASE WHEN c.refused = 0 THEN 1 ELSE 0 END), SUM(c.refused), SUM(c.prompt_tokens + c.completion_tokens),
         SUM(CASE WHEN c.rating = 1 THEN 1 ELSE 0 END), SUM(CASE WHEN c.rating = 0 THEN 1 ELSE 0 END),
         SUM(CASE WHEN c.correction_id IS NULL THEN 0 ELSE 1 END)
    FROM chat_logs c WHERE ${where} AND c.rolled_up = 0
   GROUP BY c.deployment_id, c.created_at - (c.created_at % ${ROLLUP_BUCKET_MS})
  ON CONFLICT (deployment_id, bucket) DO UPDATE SET
    questions = report_rollups.questions + excluded.questions, answers = report_rollups.answers + excluded.answers,
    refusals = report_rollups.refusals + excluded.refusals, tokens = report_rollups.tokens + excluded.tokens,
    rated_up = report_rollups.rated_up + excluded.rated_up, rated_down = report_rollups.rated_down + excluded.rated_down,
    corrections_served = report_rollups.corrections_served + excluded.corrections_served`;

/** What a turn kept as a correction's anchor keeps: its question (the correction's own) and its report counts. */
export const SCRUB_ANCHOR = "rolled_up = 1, conversation_id = '', visitor_email = NULL, answer = '', search_query = '', citations = '[]'";

/** No transcripts: a conversation's text goes once it is idle; a question rated 0 stays so the owner can correct it. */
export const SCRUB_TRANSCRIPT = `question = CASE WHEN rating = 0 THEN question ELSE '' END, answer = '', search_query = '', citations = '[]',
  visitor_email = NULL`;
export const HAS_TRANSCRIPT = `(answer <> '' OR search_query <> '' OR visitor_email IS NOT NULL OR citations <> '[]'
  OR (question <> '' AND (rating IS NULL OR rating <> 0)))`;
