/** Entry point of the llama worker child when running from source; a compiled binary uses `__llama-worker`. */
import { runLlamaWorker } from "./llama-worker.ts";

await runLlamaWorker();
