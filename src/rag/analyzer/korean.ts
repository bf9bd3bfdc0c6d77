/**
 * Korean writes particles and endings onto the word they follow (도서관에서 "in the library", 학생들은 "the
 * students"); Intl.Segmenter keeps such a word whole. Stripping the common particles, the plural 들 and the
 * endings of 하다-verbs and the copula lets 도서관 match 도서관에서 and 공부 match 공부합니다. Longest ending
 * first; at least one syllable stays.
 */
const ENDINGS = [
  // 하다-verbs and the copula: 공부합니다, 공부했다, 학생입니다
  "했습니까",
  "했습니다",
  "합니까",
  "합니다",
  "하였다",
  "했어요",
  "해요",
  "했다",
  "한다",
  "하는",
  "하고",
  "하여",
  "해서",
  "하다",
  "하면",
  "입니까",
  "입니다",
  "이었다",
  "였다",
  "이다",
  "인가요",
  "인",
  // particles, longer ones first
  "에서는",
  "에서도",
  "으로는",
  "에게서",
  "이라고",
  "에서",
  "에게",
  "한테",
  "께서",
  "으로",
  "까지",
  "부터",
  "보다",
  "처럼",
  "이나",
  "이며",
  "라고",
  "이란",
  "에는",
  "에도",
  "로는",
  "과는",
  "와는",
  "은",
  "는",
  "이",
  "가",
  "을",
  "를",
  "의",
  "에",
  "께",
  "로",
  "와",
  "과",
  "도",
  "만",
  "나",
  "며",
  "란",
].sort((a, b) => b.length - a.length);

export function stripKoreanParticles(word: string): string {
  let w = word;
  for (let pass = 0; pass < 2; pass++) {
    const e = ENDINGS.find((s) => w.length > s.length && w.endsWith(s));
    if (!e) break;
    w = w.slice(0, -e.length);
    // the plural marker sits between the noun and its particle: 학생들은 → 학생들 → 학생
    if (w.length > 1 && w.endsWith("들")) w = w.slice(0, -1);
  }
  return w;
}
