/** Groups words (with their following whitespace) so that concatenating the groups gives back `text`. */
export function toWordGroups(text: string, wordsPerGroup: number): string[] {
  const pieces = text.match(/\S+\s*/g) ?? [];
  const groups: string[] = [];
  for (let i = 0; i < pieces.length; i += wordsPerGroup) groups.push(pieces.slice(i, i + wordsPerGroup).join(""));
  return groups;
}
