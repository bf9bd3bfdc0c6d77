/**
 * Loads BEIR SciFact (train claims) from ../shared/data/dev/scifact, read in place: the licence allows evaluation
 * use, not redistribution, so the data is never copied into the repository.
 */
import { join } from "node:path";

export const SCIFACT_DIR = join(import.meta.dir, "../../../shared/data/dev/scifact");

export interface Passage {
  id: string;
  title: string;
  text: string;
}

export interface Query {
  id: string;
  text: string;
}

export interface Dataset {
  corpus: Passage[];
  /** only claims that have at least one judged relevant abstract, in file order */
  queries: Query[];
  /** query id → (corpus id → graded relevance) */
  qrels: Map<string, Map<string, number>>;
}

async function readJsonl<T>(path: string): Promise<T[]> {
  const text = await Bun.file(path).text();
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as T);
}

export async function loadScifact({ dir = SCIFACT_DIR, queryLimit }: { dir?: string; queryLimit?: number } = {}): Promise<Dataset> {
  const corpus = (await readJsonl<{ _id: string; title: string; text: string }>(join(dir, "corpus.jsonl"))).map((d) => ({
    id: d._id,
    title: d.title,
    text: d.text,
  }));
  const qrels = new Map<string, Map<string, number>>();
  const tsv = await Bun.file(join(dir, "qrels/train.tsv")).text();
  for (const line of tsv.split("\n").slice(1)) {
    const [qid, docId, score] = line.split("\t");
    if (!qid || !docId || score === undefined) continue;
    const rels = qrels.get(qid) ?? new Map<string, number>();
    rels.set(docId, Number(score));
    qrels.set(qid, rels);
  }
  const queries = (await readJsonl<{ _id: string; text: string }>(join(dir, "queries.jsonl")))
    .filter((q) => qrels.has(q._id))
    .map((q) => ({ id: q._id, text: q.text }));
  return { corpus, queries: queryLimit ? queries.slice(0, queryLimit) : queries, qrels };
}

/** The text a retriever sees for a passage, as BEIR does: title and abstract. */
export const passageText = (p: Passage): string => `${p.title}\n${p.text}`;
