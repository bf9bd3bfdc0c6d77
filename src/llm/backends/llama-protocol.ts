import type { LlmMessage } from "../backend.ts";

/** Messages over the IPC channel between the HTTP process and the llama worker child. */
export type ToLlamaWorker =
  | { type: "init"; modelPath: string; threads?: number; contextSize: number }
  | { type: "generate"; id: string; messages: LlmMessage[]; maxTokens: number; temperature: number }
  | { type: "abort"; id: string }
  | { type: "count"; id: string; text: string };

export type FromLlamaWorker =
  | { type: "ready" }
  /** the model could not be loaded; the worker exits right after */
  | { type: "fatal"; message: string }
  | { type: "delta"; id: string; text: string }
  | { type: "done"; id: string; promptTokens: number; completionTokens: number; finishReason: "stop" | "length" }
  | { type: "count"; id: string; tokens: number }
  | { type: "error"; id: string; message: string };
