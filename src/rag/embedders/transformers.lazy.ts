/**
 * transformers.js (and onnxruntime's binding): ~1 MB of code, a separate entry point of the compiled binary (see
 * scripts/build-binary.ts), loaded by createOnnxEmbedder() only when an ONNX model is used.
 */
export { env, pipeline } from "@huggingface/transformers";
