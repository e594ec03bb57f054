// Splits documented command lines into argv the way a POSIX shell would, for the examples we write.

/** Splits a command line as a POSIX shell would for our examples: quotes and backslash-newlines, no expansion. */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word = "";
  let inWord = false;
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (quote !== null) {
      if (c === quote) quote = null;
      else word += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      inWord = true;
    } else if (c === "\\" && line[i + 1] === "\n") {
      i++;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (quote !== null) throw new Error(`unterminated quote in: ${line}`);
  if (inWord) words.push(word);
  return words;
}
