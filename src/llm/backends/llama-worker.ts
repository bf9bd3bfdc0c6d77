import { type ChatHistoryItem, GeneralChatWrapper, getLlama, LlamaChat, type LlamaModel } from "node-llama-cpp";
import type { LlmMessage } from "../backend.ts";
import type { FromLlamaWorker, ToLlamaWorker } from "./llama-protocol.ts";

interface Loaded {
  model: LlamaModel;
  chat: LlamaChat;
  wrapper: GeneralChatWrapper;
}

function send(msg: FromLlamaWorker): void {
  process.send?.(msg);
}

function toHistory(messages: LlmMessage[]): ChatHistoryItem[] {
  const history: ChatHistoryItem[] = messages.map((m) =>
    m.role === "assistant" ? { type: "model", response: [m.content] } : { type: m.role, text: m.content },
  );
  // generateResponse continues the last model turn, so the prompt must end with an empty one.
  history.push({ type: "model", response: [] });
  return history;
}

async function load(init: Extract<ToLlamaWorker, { type: "init" }>): Promise<Loaded> {
  // build: "never" — a missing prebuilt binary must fail fast, not start a compiler inside a server.
  const llama = await getLlama({ gpu: false, build: "never" });
  const model = await llama.loadModel({ modelPath: init.modelPath });
  const context = await model.createContext({ contextSize: init.contextSize, threads: init.threads });
  // An explicit wrapper: GGUFs without a chat template (like the test model) would otherwise be guessed at.
  const wrapper = new GeneralChatWrapper();
  const chat = new LlamaChat({ contextSequence: context.getSequence(), chatWrapper: wrapper });
  return { model, chat, wrapper };
}

async function generate(loaded: Loaded, msg: Extract<ToLlamaWorker, { type: "generate" }>, signal: AbortSignal) {
  const history = toHistory(msg.messages);
  const prompt = loaded.wrapper.generateContextState({ chatHistory: history }).contextText;
  let completionTokens = 0;
  const res = await loaded.chat.generateResponse(history, {
    maxTokens: msg.maxTokens,
    temperature: msg.temperature,
    signal,
    stopOnAbortSignal: true,
    onToken: (tokens) => {
      completionTokens += tokens.length;
    },
    // node-llama-cpp can emit empty chunks (e.g. while a stop trigger is still undecided); they carry nothing.
    onTextChunk: (text) => {
      if (text) send({ type: "delta", id: msg.id, text });
    },
  });
  send({
    type: "done",
    id: msg.id,
    promptTokens: prompt.tokenize(loaded.model.tokenizer).length,
    completionTokens,
    finishReason: res.metadata.stopReason === "maxTokens" ? "length" : "stop",
  });
}

/**
 * The child side of the llama-cpp backend: loads the model once, then serves generate/count/abort messages
 * over IPC until the parent disconnects. Generations run one at a time on a single context sequence.
 */
export function runLlamaWorker(): Promise<void> {
  if (!process.send) throw new Error("the llama worker must be started by the llama-cpp backend (IPC channel missing)");
  let loaded: Promise<Loaded> | undefined;
  let queue = Promise.resolve();
  const aborts = new Map<string, AbortController>();

  const fail = (id: string, e: unknown) => send({ type: "error", id, message: e instanceof Error ? e.message : String(e) });

  process.on("message", (raw) => {
    const msg = raw as ToLlamaWorker;
    if (msg.type === "init") {
      loaded = load(msg);
      loaded.then(
        () => send({ type: "ready" }),
        (e) => {
          send({ type: "fatal", message: e instanceof Error ? e.message : String(e) });
          process.exit(1);
        },
      );
    } else if (msg.type === "abort") {
      aborts.get(msg.id)?.abort();
    } else if (msg.type === "count") {
      loaded?.then((l) => send({ type: "count", id: msg.id, tokens: l.model.tokenize(msg.text).length })).catch((e) => fail(msg.id, e));
    } else if (msg.type === "generate") {
      const controller = new AbortController();
      aborts.set(msg.id, controller);
      queue = queue
        .then(async () => {
          if (!loaded) throw new Error("generate before init");
          if (!controller.signal.aborted) await generate(await loaded, msg, controller.signal);
        })
        .catch((e) => fail(msg.id, e))
        .finally(() => aborts.delete(msg.id));
    }
  });

  return new Promise((resolve) => {
    // The parent is gone (or closed us): nothing to serve anymore.
    process.on("disconnect", () => {
      resolve();
      process.exit(0);
    });
  });
}
