/**
 * The Universal Sentence Encoder lite SentencePiece tokenizer (same ids as @energetic-ai/embeddings and
 * tfjs-models' USE tokenizer), rewritten because the original copies the rest of the input at every position
 * (`symbols.slice(i)`), which is quadratic: ~17 ms per 1,500-character passage, a fifth of the embedding time,
 * spent blocking the thread. This walks the trie in place and is linear in practice.
 */

interface TrieNode {
  children: Map<string, TrieNode>;
  /** vocabulary index when a piece ends here */
  index?: number;
  score: number;
}

const SEPARATOR = "\u2581";
// Ids 0..5 are reserved (unknown, <s>, </s>, extra tokens) and never produced by matching.
const RESERVED_SYMBOLS = 6;

export type Vocabulary = [string, number][];

export function createUseTokenizer(vocabulary: Vocabulary): { encode(text: string): number[] } {
  const root: TrieNode = { children: new Map(), score: 0 };
  for (let i = RESERVED_SYMBOLS; i < vocabulary.length; i++) {
    const [piece, score] = vocabulary[i] ?? ["", 0];
    let node = root;
    for (const ch of piece) {
      let next = node.children.get(ch);
      if (!next) {
        next = { children: new Map(), score: 0 };
        node.children.set(ch, next);
      }
      node = next;
    }
    node.index = i;
    node.score = score;
  }

  function encode(text: string): number[] {
    const normalized = text.normalize("NFKC");
    if (normalized.length === 0) return [];
    const symbols = Array.from(SEPARATOR + normalized.replace(/ /g, SEPARATOR));
    const n = symbols.length;
    // Viterbi over the piece lattice; edges ending at a position are kept in start order, as the original does,
    // so ties resolve identically.
    const ending: { start: number; score: number; index: number }[][] = Array.from({ length: n + 1 }, () => []);
    for (let i = 0; i < n; i++) {
      let node = root.children.get(symbols[i] ?? "");
      let matched = false;
      for (let j = i; j < n && node; j++) {
        if (node.index !== undefined) {
          ending[j + 1]?.push({ start: i, score: node.score, index: node.index });
          matched = true;
        }
        node = node.children.get(symbols[j + 1] ?? "");
      }
      if (!matched) ending[i + 1]?.push({ start: i, score: 0, index: 0 });
    }
    const best = new Array<number>(n + 1).fill(0);
    const chosen = new Array<number>(n + 1).fill(0);
    const chosenStart = new Array<number>(n + 1).fill(0);
    for (let end = 1; end <= n; end++) {
      for (const edge of ending[end] ?? []) {
        const score = edge.score + (best[edge.start] ?? 0);
        if (best[end] === 0 || score >= (best[end] ?? 0)) {
          best[end] = score;
          chosen[end] = edge.index;
          chosenStart[end] = edge.start;
        }
      }
    }
    const ids: number[] = [];
    for (let pos = n; pos > 0; pos = chosenStart[pos] ?? 0) ids.push(chosen[pos] ?? 0);
    ids.reverse();
    // Runs of unknown symbols collapse into one unknown id.
    return ids.filter((id, k) => !(id === 0 && ids[k - 1] === 0));
  }

  return { encode };
}
