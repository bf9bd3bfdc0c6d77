import mammoth from "mammoth";
import { appError, isAppError } from "../../errors/index.ts";
import { isCfb, isEncryptedOoxml } from "../byte-search.ts";
import type { ParsedDocument, Parser } from "../types.ts";
import { guardZipInflation } from "../zip-guard.ts";
import { isZipMagic } from "../zip-reader.ts";
import { docxCoreProperties } from "./docx-core.ts";
import { htmlToBlocks } from "./docx-html.ts";

// The document's Title sits above its Heading 1 sections (docx-html.ts gives it level 0), so every section's
// heading path starts with it: "Personal Worldview Essay > Basics".
const STYLE_MAP = ["p[style-name='Title'] => h1.doc-title:fresh", "p[style-name='Subtitle'] => h2:fresh"];

export const docxParser: Parser = {
  kind: "docx",
  async parse(bytes, opts) {
    if (isEncryptedOoxml(bytes)) throw appError("document_encrypted");
    if (isCfb(bytes) || !isZipMagic(bytes)) throw appError("document_unreadable");
    // Runs before mammoth (JSZip) inflates anything, so a zip bomb is stopped at the cap.
    const entries = await guardZipInflation(bytes, opts.maxInflatedBytes);
    if (!entries.some((e) => e.name === "word/document.xml")) throw appError("unsupported_document");
    const blocks = htmlToBlocks(await convertToHtml(bytes));
    if (blocks.length === 0) throw appError("no_extractable_text");
    const meta = docxCoreProperties(bytes, entries);
    return { kind: "docx", blocks, ...(meta ? { meta } : {}) } satisfies ParsedDocument;
  },
};

async function convertToHtml(bytes: Uint8Array): Promise<string> {
  try {
    const result = await mammoth.convertToHtml(
      { buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) },
      {
        styleMap: STYLE_MAP,
        externalFileAccess: false,
        // images carry no text; never decode or inline them
        convertImage: mammoth.images.imgElement(async () => ({ src: "" })),
      },
    );
    return result.value;
  } catch (cause) {
    if (isAppError(cause)) throw cause;
    throw appError("document_unreadable", { cause });
  }
}
