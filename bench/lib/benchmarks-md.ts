import { join } from "node:path";
import { describeMachine } from "./machine-info.ts";

/** Replaces (or appends) one `## title` section of BENCHMARKS.md, leaving every other section alone. */
export async function replaceSection(path: string, title: string, body: string): Promise<void> {
  const file = Bun.file(path);
  const text = (await file.exists())
    ? await file.text()
    : "# Benchmarks\n\nFigures measured on this project's machines; each section names its command, machine and date.\n";
  const heading = `## ${title}`;
  const start = text.indexOf(`${heading}\n`);
  const section = `${heading}\n\n${body.trim()}\n`;
  if (start < 0) {
    await Bun.write(path, `${text.trimEnd()}\n\n${section}`);
    return;
  }
  const next = text.indexOf("\n## ", start + heading.length);
  await Bun.write(path, `${text.slice(0, start)}${section}${next < 0 ? "" : `\n${text.slice(next + 1)}`}`);
}

/** BENCHMARKS.md at the repository's root, where every benchmark keeps its section. */
export const BENCHMARKS_MD = join(import.meta.dir, "../../BENCHMARKS.md");

/** Prints a benchmark's section and, with `write`, puts it into BENCHMARKS.md under `## title`. */
export async function reportSection(title: string, body: string, write: boolean | undefined): Promise<void> {
  console.log(body);
  if (write) await replaceSection(BENCHMARKS_MD, title, body);
}

/**
 * The writer of a benchmark with several sections: each printed under its heading and, with `write`, put into
 * BENCHMARKS.md with the run's command line and machine on top.
 */
export function sectionWriter(script: string, write: boolean): (title: string, body: string) => Promise<void> {
  const argv = process.argv.slice(2);
  const command = `bun ${script}${argv.length ? ` ${argv.join(" ")}` : ""}`;
  const machine = describeMachine();
  return async (title, body) => {
    console.log(`\n## ${title}\n\n${body}`);
    if (write) await replaceSection(BENCHMARKS_MD, title, `Command: \`${command}\`\nMachine: ${machine}.\n\n${body}`);
  };
}

/**
 * Replaces (or appends) `### heading` blocks inside the `## title` section, each up to the next `###` or `##`
 * heading, leaving the section's other subsections alone: a run that measured part of a section (--only).
 * `blocks` each begin with their `### ` heading line.
 */
export async function replaceSubsections(path: string, title: string, blocks: string[]): Promise<void> {
  const file = Bun.file(path);
  let text = (await file.exists()) ? await file.text() : "";
  const heading = `## ${title}\n`;
  if (!text.includes(heading)) return replaceSection(path, title, blocks.join("\n\n"));
  for (const block of blocks) {
    const start = text.indexOf(heading);
    const end = text.indexOf("\n## ", start + heading.length);
    const sectionEnd = end < 0 ? text.length : end + 1;
    const head = `${block.split("\n")[0]}\n`;
    const at = text.indexOf(head, start);
    const body = `${block.trim()}\n`;
    if (at < 0 || at >= sectionEnd) {
      text = `${text.slice(0, sectionEnd).trimEnd()}\n\n${body}${end < 0 ? "" : `\n${text.slice(sectionEnd)}`}`;
      continue;
    }
    const nextSub = text.indexOf("\n### ", at + head.length);
    const stop = nextSub >= 0 && nextSub < sectionEnd ? nextSub + 1 : sectionEnd;
    text = `${text.slice(0, at)}${body}${stop < text.length ? `\n${text.slice(stop)}` : ""}`;
  }
  await Bun.write(path, text);
}
