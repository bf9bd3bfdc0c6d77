import { join } from "node:path";

/** The 13 real files (all four formats, 118 pages) the ingest benchmarks have measured since the first one. */
export const INGEST_MIX = [
  "pdf/text/debian-bash-doc-bash.pdf",
  "pdf/text/federal-register-2020-17221.pdf",
  "pdf/text/pdflatex-4-pages.pdf",
  "pdf/text/google-doc-document.pdf",
  "pdf/text/multicolumn.pdf",
  "pdf/text/scotus-transcript-p1.pdf",
  "docx/python-docx/par-known-paragraphs.docx",
  "docx/mammoth/tables.docx",
  "docx/poi/bug65649.docx",
  "csv/clevercsv/imdb.csv",
  "csv/csvkit/FY09_EDU_Recipients_by_State.csv",
  "txt/gutenberg-11-alice.txt",
  "txt/gutenberg-1661-sherlock-holmes.txt",
].map((f) => join(import.meta.dir, "../../../shared/data/docs", f));
