export type TextEncoding = "utf-8" | "utf-16le" | "utf-16be" | "windows-1252";

export interface DecodedText {
  text: string;
  encoding: TextEncoding;
}

/** Picks the encoding from a BOM, the zero-byte pattern of BOM-less UTF-16, or UTF-8 validity. */
export function sniffEncoding(bytes: Uint8Array): TextEncoding {
  const [b0, b1, b2] = bytes;
  if (b0 === 0xef && b1 === 0xbb && b2 === 0xbf) return "utf-8";
  if (b0 === 0xff && b1 === 0xfe) return "utf-16le";
  if (b0 === 0xfe && b1 === 0xff) return "utf-16be";
  const utf16 = sniffBomlessUtf16(bytes);
  if (utf16) return utf16;
  return looksLikeUtf8(bytes) ? "utf-8" : "windows-1252";
}

export function decodeText(bytes: Uint8Array): DecodedText {
  const encoding = sniffEncoding(bytes);
  // TextDecoder drops a matching BOM by itself (ignoreBOM defaults to false).
  return { text: new TextDecoder(encoding).decode(bytes), encoding };
}

/**
 * True when the bytes hold NULs or many C0 control characters for their encoding: binary content,
 * not text. UTF-16 is decoded first, so its zero high bytes don't count.
 */
export function looksBinary(bytes: Uint8Array, sampleSize = 8192): boolean {
  const sample = bytes.subarray(0, sampleSize);
  const encoding = sniffEncoding(sample);
  if (encoding === "utf-16le" || encoding === "utf-16be") {
    const text = new TextDecoder(encoding).decode(sample);
    return text.includes("\u0000") || controlRatio(text) > 0.02;
  }
  if (sample.includes(0)) return true;
  return controlRatio(new TextDecoder("latin1").decode(sample)) > 0.02;
}

function controlRatio(text: string): number {
  if (text.length === 0) return 0;
  // \t \n \v \f \r and ESC show up in real text files; other C0 controls don't.
  const controls = text.match(/[\u0000-\u0008\u000e-\u001a\u001c-\u001f]/g)?.length ?? 0;
  return controls / text.length;
}

/**
 * Mostly-valid UTF-8 with a few broken sequences is still UTF-8 (a cut or damaged file); Latin-1 text
 * makes almost every high byte invalid, because a lone byte >= 0x80 never forms a sequence.
 */
function looksLikeUtf8(bytes: Uint8Array): boolean {
  let highBytes = 0;
  // indexed: a typed array's iterator cost more than the rest of a small text file's parse
  for (let i = 0; i < bytes.length; i++) if ((bytes[i] as number) >= 0x80) highBytes++;
  if (highBytes === 0) return true;
  const lossy = new TextDecoder("utf-8").decode(bytes);
  let replacements = 0;
  for (let i = lossy.indexOf("\ufffd"); i !== -1; i = lossy.indexOf("\ufffd", i + 1)) replacements++;
  return replacements <= highBytes * 0.1;
}

function sniffBomlessUtf16(bytes: Uint8Array): TextEncoding | undefined {
  const n = Math.min(bytes.length, 4096) & ~1;
  if (n < 4) return undefined;
  let evenZeros = 0;
  let oddZeros = 0;
  for (let i = 0; i < n; i += 2) {
    if (bytes[i] === 0) evenZeros++;
    if (bytes[i + 1] === 0) oddZeros++;
  }
  const pairs = n / 2;
  if (oddZeros > pairs * 0.4 && evenZeros < pairs * 0.05) return "utf-16le";
  if (evenZeros > pairs * 0.4 && oddZeros < pairs * 0.05) return "utf-16be";
  return undefined;
}
