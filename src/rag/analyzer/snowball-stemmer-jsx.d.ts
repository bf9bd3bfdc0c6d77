/** snowball-stemmer.jsx ships no types; the one class used (stemmers.ts). */
declare module "snowball-stemmer.jsx/dest/english-stemmer.common.js" {
  export class EnglishStemmer {
    stemWord(word: string): string;
  }
}
