/**
 * One deployment of N synthetic chunks (~90 words, SciFact sentences recombined) in a fresh store of the source tree
 * given (so two trees compare in one run): a SQLite data dir, or the PostgreSQL database DOCCHAT_DATABASE_URL
 * names. A tree with the analyzer gives its chunks their terms, as training does; an older one indexes the text
 * itself. Used by keyword-latency.ts and keyword-steps.ts, the child processes of bench/languages.bench.ts.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

type App = typeof import("../../src/app.ts");
export type Services = Awaited<ReturnType<App["createServices"]>>;

const scifact = join(import.meta.dir, "../../../shared/data/dev/scifact");

/** SciFact claims, in file order: the questions the latency benches ask. */
export const claims = async (): Promise<string[]> =>
  (await Bun.file(join(scifact, "queries.jsonl")).text())
    .split("\n")
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { text: string }).text);

export async function syntheticDeployment(
  root: string,
  n: number,
): Promise<{ s: Services; deploymentId: string; loadSeconds: number; close(): Promise<void> }> {
  const app = (await import(join(root, "src/app.ts"))) as App;
  const terms = (await import(join(root, "src/rag/terms.ts"))) as Partial<typeof import("../../src/rag/terms.ts")>;
  const corpus = (await Bun.file(join(scifact, "corpus.jsonl")).text())
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { title: string; text: string });
  const sentences = corpus.flatMap((p) => p.text.split(/(?<=\.)\s+/)).filter((s) => s.length > 40);
  const text = (i: number) => Array.from({ length: 4 }, (_, j) => sentences[(i * 7 + j * 131) % sentences.length]).join(" ");
  // configFor reads only the variables it is given: the PostgreSQL database the parent chose, passed on
  const pgUrl = process.env.DOCCHAT_DATABASE_URL;
  const dir = mkdtempSync(join(tmpdir(), "docchat-kw-latency-"));
  const s = await app.createServices(app.configFor(dir, { DOCCHAT_EMBEDDER: "none", ...(pgUrl ? { DOCCHAT_DATABASE_URL: pgUrl } : {}) }));
  const close = async () => {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const account = await s.accounts.create({ email: "lat@example.com", tokens: 10 });
    const { deployment } = await s.deployments.create({ accountId: account.id, name: "Latency", published: true });
    const t0 = performance.now();
    for (let i = 0; i < n; i += 1000) {
      const id = `doc_${i}`;
      await s.repos.documents.insert({
        id,
        deploymentId: deployment.id,
        name: `${id}.txt`,
        kind: "txt",
        contentHash: id,
        bytes: new TextEncoder().encode(id),
        pages: null,
        queue: false,
        replaceOnTrain: false,
      } as Parameters<typeof s.repos.documents.insert>[0]);
      const drafts = Array.from({ length: Math.min(1000, n - i) }, (_, j) => ({
        ord: j,
        source: id,
        text: text(i + j),
        headingPath: "",
        tokenCount: 90,
        textHash: `${i + j}`,
      }));
      const analyzed = terms.chunkTerms ? terms.chunkTerms(drafts, "en", ["en"]) : [];
      await s.repos.chunkIndex.insert(
        deployment.id,
        id,
        drafts.map((d, k) => ({ ...d, ...(analyzed[k] ?? {}) })) as Parameters<typeof s.repos.chunkIndex.insert>[2],
      );
    }
    return { s, deploymentId: deployment.id, loadSeconds: (performance.now() - t0) / 1000, close };
  } catch (e) {
    await close();
    throw e;
  }
}
