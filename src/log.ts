type Level = "debug" | "info" | "warn" | "error" | "silent";
const order: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

/** Removes anything key-shaped so a key can never reach a log line, even via a URL or an error message. */
export function redact(text: string): string {
  return text
    .replace(/(api_key|apikey|key|token|password)=([^&\s"]+)/gi, "$1=[redacted]")
    .replace(/dck_[0-9A-Za-z]+/g, "dck_[redacted]")
    .replace(/whsec_[0-9A-Za-z+/=]+/g, "whsec_[redacted]")
    .replace(/(bearer\s+)[^\s"]+/gi, "$1[redacted]");
}

/** JSON lines on stderr, so `--json` stdout of CLI commands stays clean. */
export function createLogger(level: Level = "info", sink: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): Logger {
  const at = order[level];
  const emit = (lvl: Level, msg: string, fields?: Record<string, unknown>) => {
    if (order[lvl] < at) return;
    sink(redact(JSON.stringify({ t: new Date().toISOString(), level: lvl, msg, ...fields })));
  };
  return {
    debug: (m, f) => emit("debug", m, f),
    info: (m, f) => emit("info", m, f),
    warn: (m, f) => emit("warn", m, f),
    error: (m, f) => emit("error", m, f),
  };
}
