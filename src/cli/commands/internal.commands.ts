import type { Command } from "../command.ts";

/**
 * Child-process entry points. From source the parent starts the worker's own .ts file; a compiled binary has no
 * such file, so it starts itself as `[process.execPath, "__parse-worker"]` / `"__llama-worker"`. Hidden from
 * --help; imported lazily so the heavy parser and llama.cpp code load only inside the child (the parser's from an
 * entry point of its own in the binary: parse-worker.lazy.ts).
 */
export const internalCommands: Command[] = [
  {
    path: ["__parse-worker"],
    usage: "__parse-worker",
    summary: "Internal: the document parser child process.",
    options: {},
    hidden: true,
    async run() {
      const { runParseWorker } = (await import(new URL("./parse-worker.lazy.ts", import.meta.url).href)) as typeof import("./parse-worker.lazy.ts");
      await runParseWorker();
      return 0;
    },
  },
  {
    path: ["__llama-worker"],
    usage: "__llama-worker",
    summary: "Internal: the local GGUF model child process (node-llama-cpp).",
    options: {},
    hidden: true,
    async run() {
      // node-llama-cpp checks its native binding by forking process.execPath with a .js file. In a compiled
      // binary that is docchat itself, so this child's children must behave as plain Bun (BUN_BE_BUN).
      if (Bun.isStandaloneExecutable) process.env.BUN_BE_BUN = "1";
      const { runLlamaWorker } = await import("../../llm/backends/llama-worker.ts");
      await runLlamaWorker();
      return 0;
    },
  },
];
