/**
 * SQuAD 2.0 dev articles 1–8 (../shared/data/dev/squad2), read in place: the 8 articles become documents; their
 * answerable questions should pass the grounding gate; the out-of-corpus questions (other articles) should be
 * refused; the on-topic unanswerable ones (is_impossible) are reported separately.
 */
import { join } from "node:path";

export const SQUAD_DIR = join(import.meta.dir, "../../../shared/data/dev/squad2");

export interface SquadQuestion {
  id: string;
  title: string;
  question: string;
  /** gold answers (empty for unanswerable and out-of-corpus questions) */
  answers: string[];
  kind: "answerable" | "unanswerable" | "out-of-corpus";
}

export interface SquadData {
  articles: { title: string; paragraphs: string[] }[];
  questions: SquadQuestion[];
}

interface RawArticle {
  title: string;
  paragraphs: { context: string; qas: { id: string; question: string; is_impossible: boolean; answers: { text: string }[] }[] }[];
}

export async function loadSquad(dir = SQUAD_DIR): Promise<SquadData> {
  const raw = (await Bun.file(join(dir, "articles-with-answers.json")).json()) as { data: RawArticle[] };
  const ooc = (await Bun.file(join(dir, "out-of-corpus-questions.json")).json()) as { id: string; title: string; question: string }[];
  const questions: SquadQuestion[] = raw.data.flatMap((a) =>
    a.paragraphs.flatMap((p) =>
      p.qas.map((q) => ({
        id: q.id,
        title: a.title,
        question: q.question,
        answers: q.answers.map((x) => x.text),
        kind: q.is_impossible ? ("unanswerable" as const) : ("answerable" as const),
      })),
    ),
  );
  for (const q of ooc) questions.push({ id: q.id, title: q.title, question: q.question, answers: [], kind: "out-of-corpus" });
  return { articles: raw.data.map((a) => ({ title: a.title, paragraphs: a.paragraphs.map((p) => p.context) })), questions };
}
