import { type Config, definition } from "./definition.ts";

export class ConfigError extends Error {
  override name = "ConfigError";
}

/**
 * Pure: the environment and argv go in, a validated Config comes out. Flags beat env, env beats defaults.
 * Unknown DOCCHAT_* variables are ignored; an invalid value throws one ConfigError naming the setting.
 */
export function loadConfig(input: { env: Record<string, string | undefined>; flags?: Record<string, string> }): Config {
  const out: Record<string, unknown> = {};
  for (const [key, s] of Object.entries(definition)) {
    const fromFlag = s.flag ? input.flags?.[s.flag] : undefined;
    const raw = fromFlag ?? input.env[s.env];
    if (raw === undefined || (raw === "" && fromFlag === undefined && typeof s.default !== "string")) {
      out[key] = Array.isArray(s.default) ? [...s.default] : s.default;
      continue;
    }
    try {
      out[key] = (s.parse as (r: string) => unknown)(raw);
    } catch (e) {
      const where = fromFlag !== undefined ? s.flag : s.env;
      throw new ConfigError(`Invalid value for ${where}: ${(e as Error).message}`);
    }
  }
  return out as Config;
}

/** Reads the process environment; the only place outside tests that does. */
export function processEnv(): Record<string, string | undefined> {
  return process.env;
}
