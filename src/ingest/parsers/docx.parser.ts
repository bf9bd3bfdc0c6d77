import { appError, isAppError } from "../../errors/index.ts";
import { isCfb, isEncryptedOoxml } from "../byte-search.ts";
import type { Block, ParsedDocument, Parser } from "../types.ts";
import { guardZipInflation } from "../zip-guard.ts";
import { isZipMagic, type ZipEntry } from "../zip-reader.ts";
import { docxCoreProperties } from "./docx-core.ts";
import { htmlToBlocks } from "./docx-html.ts";
import { docxXmlToBlocks, entryText, headingStyles, LARGE_DOCX_XML_BYTES, numberedLevels } from "./docx-xml.ts";

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
    const main = entries.find((e) => e.name === "word/document.xml");
    if (!main) throw appError("unsupported_document");
    const blocks =
      main.uncompressedSize > LARGE_DOCX_XML_BYTES ? readLarge(bytes, entries, main) : htmlToBlocks(await convertToHtml(bytes));
    if (blocks.length === 0) throw appError("no_extractable_text");
    const meta = docxCoreProperties(bytes, entries);
    return { kind: "docx", blocks, ...(meta ? { meta } : {}) } satisfies ParsedDocument;
  },
};

/** A large document, read from its XML (docx-xml.ts): mammoth would need more memory than one parse may take. */
function readLarge(bytes: Uint8Array, entries: ZipEntry[], main: ZipEntry): Block[] {
  try {
    const part = (name: string) => {
      const e = entries.find((x) => x.name === name);
      return e ? entryText(bytes, e) : "";
    };
    return docxXmlToBlocks(entryText(bytes, main), headingStyles(part("word/styles.xml")), numberedLevels(part("word/numbering.xml")));
  } catch (cause) {
    throw appError("document_unreadable", { cause });
  }
}

async function convertToHtml(bytes: Uint8Array): Promise<string> {
  try {
    // loaded with the first DOCX: a parse worker of a load without one (a folder of TXT) skips mammoth, JSZip and
    // their streams, ~5 % of its time on 2,500 abstracts, paid again by every recycled worker
    const { default: mammoth } = await import("mammoth");
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
