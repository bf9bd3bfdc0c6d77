export { type Config, definition } from "./definition.ts";
export { ConfigError, loadConfig, processEnv } from "./load-config.ts";
