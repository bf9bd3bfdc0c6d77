/**
 * Copies node-llama-cpp and its runtime dependency closure into `<out>/lib/node_modules`, the folder the
 * executable loads it from (see plugins.ts). Only the target's prebuilt llama.cpp package is included, and
 * llama.cpp's source bundle (used only to compile from source, which docchat never does) is left out.
 */
import { cpSync, existsSync, readFileSync, rmSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import type { TargetSpec } from "./targets.ts";

const root = resolve(import.meta.dir, "../..");

function findPackage(name: string, from: string): string | null {
  let dir = from;
  for (;;) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return candidate;
    const up = dirname(dir);
    if (up === dir || !up.startsWith(root)) return null;
    dir = up;
  }
}

function closure(target: TargetSpec): string[] {
  const seen = new Set<string>();
  const visit = (name: string, from: string, optional: boolean) => {
    const dir = findPackage(name, from);
    if (!dir) {
      if (optional) return;
      throw new Error(`node-llama-cpp dependency ${name} is not installed (run bun install)`);
    }
    if (seen.has(dir)) return;
    seen.add(dir);
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Record<string, Record<string, string> | undefined>;
    for (const dep of Object.keys(pkg.dependencies ?? {})) visit(dep, dir, false);
    for (const dep of Object.keys(pkg.optionalDependencies ?? {})) {
      if (dep.startsWith("@node-llama-cpp/") && dep !== target.llamaPackage) continue;
      visit(dep, dir, true);
    }
  };
  visit("node-llama-cpp", root, false);
  if (!findPackage(target.llamaPackage, root)) {
    throw new Error(
      `${target.llamaPackage} is not installed; install it for this target (bun install --os/--cpu) to ship local GGUF support`,
    );
  }
  return [...seen];
}

const skip = (src: string) => !src.endsWith(`${sep}llama${sep}gitRelease.bundle`);

/** Returns the lib dir and its size in bytes. */
export function shipNodeLlamaCpp(outDir: string, target: TargetSpec): { libDir: string; bytes: number; packages: number } {
  const libDir = join(outDir, "lib");
  rmSync(libDir, { recursive: true, force: true });
  const dirs = closure(target);
  let bytes = 0;
  for (const dir of dirs) {
    const rel = relative(root, dir);
    // A package nested inside another's node_modules is copied with its parent.
    if (dirs.some((d) => d !== dir && dir.startsWith(`${d}${sep}`))) continue;
    cpSync(dir, join(libDir, rel), {
      recursive: true,
      dereference: true,
      filter: (src) => {
        if (!skip(src)) return false;
        const st = statSync(src);
        if (st.isFile()) bytes += st.size;
        return true;
      },
    });
  }
  return { libDir, bytes, packages: dirs.length };
}
