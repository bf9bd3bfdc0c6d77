/**
 * How docchat's analyzer libraries were chosen (docs/languages.md): npm candidates for Snowball stemming and for
 * language detection, installed into a temp dir (`bun add`, nothing added to docchat), measured on data nobody
 * trained them on:
 *   - stemmers: agreement with the Snowball project's own test vocabularies (Debian package snowball-data),
 *     words/s, and bundle size of the 13 languages (bun build --minify);
 *   - detectors: accuracy on short (5–12 words) and long (~50 words) passages of Debian's translated man pages in
 *     16 languages (packages manpages-de, -fr, …), µs per passage — docchat's own detector among them.
 * Needs: apt-get install snowball-data manpages manpages-de manpages-fr manpages-es manpages-it manpages-pt-br
 * manpages-nl manpages-sv manpages-da manpages-nb manpages-fi manpages-ru manpages-tr manpages-ja manpages-zh.
 *
 *   bun bench/language-libraries.bench.ts
 */
import { cpSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const work = mkdtempSync(join(tmpdir(), "docchat-lang-libs-"));
const run = (cmd: string[]) => {
  const r = Bun.spawnSync(cmd, { cwd: work, stdout: "inherit", stderr: "inherit" });
  if (r.exitCode !== 0) throw new Error(`${cmd.join(" ")} exited ${r.exitCode}`);
};
writeFileSync(join(work, "package.json"), JSON.stringify({ name: "lang-libs", private: true, trustedDependencies: [] }));
run([
  process.execPath,
  "add",
  ...["snowball-stemmers", "@orama/stemmers", "lunr-languages", "lunr", "multilingual-stemmer", "snowball-stemmer.jsx"],
  ...["franc-min", "franc", "tinyld", "eld", "cld3-asm"],
]);
const here = join(import.meta.dir, "fixtures/language-libraries");
cpSync(here, join(work, "scripts"), { recursive: true });
// docchat's detector and what it imports, copied beside the scripts
cpSync(join(import.meta.dir, "../src/rag/analyzer"), join(work, "scripts/analyzer"), { recursive: true });
writeFileSync(join(work, "scripts/docchat-detect.ts"), 'export { detectLanguage } from "./analyzer/detect-language.ts";\n');
run(["bash", "scripts/man-corpus.sh"]);
for (const s of ["correct.ts", "speed.ts", "detect.ts"]) run([process.execPath, join("scripts", s)]);
console.log(`(work dir ${work})`);
