// Replaced at build time by scripts/build-binary.ts (--define); from source it reads package.json.
declare const DOCCHAT_BUILD_VERSION: string | undefined;
declare const DOCCHAT_BUILD_COMMIT: string | undefined;

export const VERSION: string = typeof DOCCHAT_BUILD_VERSION === "string" ? DOCCHAT_BUILD_VERSION : "0.1.0";
export const COMMIT: string = typeof DOCCHAT_BUILD_COMMIT === "string" ? DOCCHAT_BUILD_COMMIT : "source";
