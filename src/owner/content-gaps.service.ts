import type { ChatService } from "../chat/chat.service.ts";
import { appError } from "../errors/index.ts";
import type { Account, ConversationLogsStore, Deployment } from "../store/contract/index.ts";
import type { CorrectionsService } from "../visitor/corrections.service.ts";
import { normaliseQuestion } from "../visitor/normalise-question.ts";
import { countTerms, type GapGroup, groupGaps } from "./gap-groups.ts";
import { ask } from "./owner-checks.ts";

const DAY_MS = 86_400_000;
/** questions read per report: enough for months of a busy deployment's gaps, bounded for the console */
const MAX_CANDIDATES = 5000;
const MAX_ASKED = 20_000;
/** distinct wordings re-asked per report (the gate only: no model is called) */
const MAX_RECHECKS = 400;
const GROUPS_SHOWN = 50;

export interface GapWording {
  question: string;
  count: number;
  lastAt: number;
  /** chat log ids asked this way (newest first), for "write an answer" */
  chatLogIds: number[];
  /** asked before the last training: whether it gets an answer now (null: asked since, nothing new to learn) */
  nowAnswered: boolean | null;
  nowSources: string[];
}

export interface GapReportGroup {
  terms: string[];
  words: string[];
  count: number;
  weight: number;
  lastAt: number;
  reasons: { refused: number; weak: number; ratedDown: number; handedOff: number };
  wordings: GapWording[];
  /** how many of the group's questions get an answer now */
  answeredNow: number;
}

/**
 * Content gaps: the questions the deployment failed (refused, weakly answered, rated 0, handed off) grouped by what
 * they ask (gap-groups.ts), ranked by how many and how recent; wordings asked before the last training are asked
 * again through the dry pipeline's gate (free, nothing logged) so the owner sees what an upload fixed.
 */
export function createContentGapsService(deps: { logs: ConversationLogsStore; dry: ChatService; corrections: CorrectionsService }) {
  return {
    async report(deployment: Deployment, account: Account, opts: { days: number; now?: number }) {
      if (!Number.isInteger(opts.days) || opts.days < 1 || opts.days > 366)
        throw appError("bad_request", { param: "days", message: "days must be a whole number from 1 to 366." });
      const now = opts.now ?? Date.now();
      const since = now - opts.days * DAY_MS;
      const [candidates, asked, total] = await Promise.all([
        deps.logs.gapCandidates(deployment.id, since, MAX_CANDIDATES),
        deps.logs.questions(deployment.id, since, MAX_ASKED),
        deps.logs.questionCount(deployment.id, since),
      ]);
      const groups = groupGaps(candidates, { now, askedTotal: asked.length, termCounts: countTerms(asked) }).slice(0, GROUPS_SHOWN);
      let budget = MAX_RECHECKS;
      const out: GapReportGroup[] = [];
      for (const g of groups) {
        // a wording the owner has answered with a correction is no longer a gap, whenever it was asked
        const wordings: GapWording[] = [];
        for (const w of byWording(g)) if (!(await deps.corrections.peek(deployment.id, w.question))) wordings.push(w);
        if (!wordings.length) continue;
        for (const w of wordings) {
          if (deployment.trainedAt === null || w.lastAt >= deployment.trainedAt || budget <= 0) continue;
          budget--;
          const o = await ask(deps.dry, { deployment, account, question: w.question, gateOnly: true });
          w.nowAnswered = o.answered;
          w.nowSources = o.sources;
        }
        out.push({
          terms: g.terms,
          words: g.words,
          count: wordings.reduce((n, w) => n + w.count, 0),
          weight: Math.round(g.weight * 100) / 100,
          lastAt: g.lastAt,
          reasons: reasonsOf(g, wordings),
          wordings,
          answeredNow: wordings.filter((w) => w.nowAnswered).reduce((n, w) => n + w.count, 0),
        });
      }
      return { days: opts.days, questions: total, gapQuestions: candidates.length, trainedAt: deployment.trainedAt, groups: out };
    },

    /** One answer for a group: a correction for each distinct wording (served when a visitor asks it that way). */
    async answer(deploymentId: string, chatLogIds: number[], answer: string): Promise<number> {
      const seen = new Set<string>();
      let written = 0;
      for (const id of chatLogIds.slice(0, 50)) {
        const turn = await deps.logs.turn(deploymentId, id);
        const norm = turn ? normaliseQuestion(turn.question) : "";
        if (!turn || !norm || seen.has(norm)) continue;
        seen.add(norm);
        await deps.corrections.set(id, answer, { deploymentId });
        written++;
      }
      if (!written) throw appError("not_found", { param: "chat_log_ids", message: "None of these chat logs has a question to answer." });
      return written;
    },
  };
}

function reasonsOf(g: GapGroup, wordings: GapWording[]): GapReportGroup["reasons"] {
  const ids = new Set(wordings.flatMap((w) => w.chatLogIds));
  const qs = g.questions.filter((q) => ids.has(q.id));
  return {
    refused: qs.filter((q) => q.refused).length,
    weak: qs.filter((q) => q.weak).length,
    ratedDown: qs.filter((q) => q.ratedDown).length,
    handedOff: qs.filter((q) => q.handedOff).length,
  };
}

function byWording(g: GapGroup): GapWording[] {
  const out = new Map<string, GapWording>();
  for (const q of g.questions) {
    const k = normaliseQuestion(q.question) || String(q.id);
    const w = out.get(k);
    if (w) {
      w.count++;
      w.chatLogIds.push(q.id);
    } else out.set(k, { question: q.question, count: 1, lastAt: q.createdAt, chatLogIds: [q.id], nowAnswered: null, nowSources: [] });
  }
  return [...out.values()].sort((a, b) => b.count - a.count || b.lastAt - a.lastAt);
}

export type ContentGapsService = ReturnType<typeof createContentGapsService>;
