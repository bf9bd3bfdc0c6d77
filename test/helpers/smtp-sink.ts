import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

/** One message as the sink received it, with the body decoded. */
export interface SinkMessage {
  messageId: string;
  envelopeFrom: string;
  envelopeTo: string[];
  subject: string;
  /** decoded text body */
  text: string;
  /** every header line (unfolded), for header-injection checks */
  headers: string[];
  raw: string;
}

export interface SmtpSink {
  /** smtp://127.0.0.1:PORT, stable across stop()/start() */
  url: string;
  port: number;
  /** accepted messages, in arrival order */
  messages: SinkMessage[];
  /** messages fully received while holding (never acknowledged to the client) */
  held: SinkMessage[];
  /** "accept" answers 250; "hold" receives the whole message and then never answers (a send in flight) */
  setMode(mode: "accept" | "hold"): void;
  running(): boolean;
  stop(): Promise<void>;
  start(): Promise<void>;
}

function decodeQuotedPrintable(s: string): string {
  const bytes: number[] = [];
  const soft = s.replace(/=\r?\n/g, "");
  for (let i = 0; i < soft.length; i++) {
    const c = soft[i] as string;
    const hex = soft.slice(i + 1, i + 3);
    if (c === "=" && /^[0-9A-F]{2}$/i.test(hex)) {
      bytes.push(Number.parseInt(hex, 16));
      i += 2;
    } else {
      bytes.push(...new TextEncoder().encode(c));
    }
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

export function parseMessage(raw: string, envelopeFrom: string, envelopeTo: string[]): SinkMessage {
  const split = raw.indexOf("\r\n\r\n");
  const head = split < 0 ? raw : raw.slice(0, split);
  const body = split < 0 ? "" : raw.slice(split + 4);
  const headers = head.replace(/\r\n[ \t]+/g, " ").split("\r\n");
  const header = (name: string) =>
    headers
      .find((h) => h.toLowerCase().startsWith(`${name.toLowerCase()}:`))
      ?.slice(name.length + 1)
      .trim() ?? "";
  const cte = header("Content-Transfer-Encoding").toLowerCase();
  const text =
    cte === "quoted-printable" ? decodeQuotedPrintable(body) : cte === "base64" ? Buffer.from(body, "base64").toString("utf8") : body;
  return {
    messageId: header("Message-ID"),
    envelopeFrom,
    envelopeTo,
    subject: header("Subject"),
    text: text.replace(/\r\n/g, "\n"),
    headers,
    raw,
  };
}

/** A real SMTP server (smtp-server) on 127.0.0.1 that records what it receives; no TLS, no auth. */
export async function startSmtpSink(): Promise<SmtpSink> {
  const messages: SinkMessage[] = [];
  const held: SinkMessage[] = [];
  let mode: "accept" | "hold" = "accept";
  let server: SMTPServer | null = null;
  let port = 0;

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const s = new SMTPServer({
        authOptional: true,
        disabledCommands: ["STARTTLS", "AUTH"],
        logger: false,
        closeTimeout: 50,
        onData(stream, session, callback) {
          const parts: Buffer[] = [];
          stream.on("data", (c: Buffer) => parts.push(c));
          stream.on("end", () => {
            const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : "";
            const msg = parseMessage(
              Buffer.concat(parts).toString("utf8"),
              from,
              session.envelope.rcptTo.map((r) => r.address),
            );
            if (mode === "hold") {
              held.push(msg);
              return; // never answer: the client is left mid-send
            }
            messages.push(msg);
            callback();
          });
        },
      });
      s.on("error", () => {});
      s.server.once("error", reject);
      s.listen(port, "127.0.0.1", () => {
        port = (s.server.address() as AddressInfo).port;
        server = s;
        resolve();
      });
    });

  await listen();
  const sink: SmtpSink = {
    url: `smtp://127.0.0.1:${port}`,
    port,
    messages,
    held,
    setMode(m) {
      mode = m;
    },
    running: () => server !== null,
    async stop() {
      const s = server;
      if (!s) return;
      server = null;
      await new Promise<void>((resolve) => s.close(() => resolve()));
    },
    async start() {
      if (!server) await listen();
    },
  };
  return sink;
}

/** How many times each Message-ID arrived. */
export function countByMessageId(list: SinkMessage[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const x of list) m.set(x.messageId, (m.get(x.messageId) ?? 0) + 1);
  return m;
}
