/**
 * What each compile target needs from node_modules. Bun cross-compiles the JavaScript for any target; the native
 * parts must be the target's own files, so the matching optional packages have to be installed
 * (`bun install --os=<os> --cpu=<cpu>`) before building for another platform.
 */
export type TargetName = "linux-x64" | "linux-arm64" | "darwin-arm64" | "darwin-x64" | "windows-x64";

export interface TargetSpec {
  /** Bun compile target */
  bun: Bun.Build.CompileTarget;
  /** onnxruntime-node folder (under node_modules/onnxruntime-node/bin/napi-v6) and the files that must sit together */
  ortDir: string;
  ortFiles: string[];
  /** node-llama-cpp's prebuilt package for this target (CPU build) */
  llamaPackage: string;
  exe: string;
}

export const targets: Record<TargetName, TargetSpec> = {
  "linux-x64": {
    bun: "bun-linux-x64",
    ortDir: "linux/x64",
    ortFiles: ["onnxruntime_binding.node", "libonnxruntime.so.1"],
    llamaPackage: "@node-llama-cpp/linux-x64",
    exe: "docchat",
  },
  "linux-arm64": {
    bun: "bun-linux-arm64",
    ortDir: "linux/arm64",
    ortFiles: ["onnxruntime_binding.node", "libonnxruntime.so.1"],
    llamaPackage: "@node-llama-cpp/linux-arm64",
    exe: "docchat",
  },
  "darwin-arm64": {
    bun: "bun-darwin-arm64",
    ortDir: "darwin/arm64",
    ortFiles: ["onnxruntime_binding.node", "libonnxruntime.1.dylib"],
    llamaPackage: "@node-llama-cpp/mac-arm64-metal",
    exe: "docchat",
  },
  "darwin-x64": {
    bun: "bun-darwin-x64",
    ortDir: "darwin/x64",
    ortFiles: ["onnxruntime_binding.node", "libonnxruntime.1.dylib"],
    llamaPackage: "@node-llama-cpp/mac-x64",
    exe: "docchat",
  },
  "windows-x64": {
    bun: "bun-windows-x64",
    ortDir: "win32/x64",
    ortFiles: ["onnxruntime_binding.node", "onnxruntime.dll"],
    llamaPackage: "@node-llama-cpp/win-x64",
    exe: "docchat.exe",
  },
};

export function hostTarget(): TargetName {
  const os = process.platform === "win32" ? "windows" : process.platform;
  const name = `${os}-${process.arch}`;
  if (!(name in targets)) throw new Error(`no docchat build target for this host (${name})`);
  return name as TargetName;
}
