import type { Transporter } from "nodemailer";
import { assertHeaderSafe, type Mailer, type MailMessage, type SendResult } from "./mailer.ts";

/** Where the mail goes without the credentials, for logs. */
export function describeSmtpUrl(url: string): string {
  const u = new URL(url);
  return `${u.protocol}//${u.hostname}${u.port ? `:${u.port}` : ""}`;
}

/** nodemailer, from its own entry point in the binary (imported by URL, so the bundle every start loads stays without it). */
export async function loadNodemailer(): Promise<typeof import("./nodemailer.lazy.ts").default> {
  return ((await import(new URL("./nodemailer.lazy.ts", import.meta.url).href)) as typeof import("./nodemailer.lazy.ts")).default;
}

/**
 * Delivers over SMTP with nodemailer (smtp:// with STARTTLS when offered, smtps:// for implicit TLS).
 * A fresh connection per message keeps a half-dead pooled socket from eating mail; owner mail is rare.
 * nodemailer loads with the first message, not at start (owner mail is rare; start-up should be quick).
 */
export function createSmtpMailer(opts: { url: string; timeoutMs: number }): Mailer {
  let transport: Transporter | null = null;
  const transportFor = async (): Promise<Transporter> => {
    if (transport) return transport;
    const nodemailer = await loadNodemailer();
    transport = nodemailer.createTransport({
      url: opts.url,
      connectionTimeout: opts.timeoutMs,
      greetingTimeout: opts.timeoutMs,
      socketTimeout: opts.timeoutMs,
      disableFileAccess: true,
      disableUrlAccess: true,
    } as Parameters<typeof nodemailer.createTransport>[0]);
    return transport;
  };
  let closed = false;
  return {
    kind: "smtp",
    description: describeSmtpUrl(opts.url),
    async send(message: MailMessage): Promise<SendResult> {
      assertHeaderSafe(message);
      if (closed) throw new Error("mailer is closed");
      let timer: ReturnType<typeof setTimeout> | undefined;
      // nodemailer's timeouts are per phase; a server that drips bytes could still hold a send forever.
      const overall = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`SMTP delivery took longer than ${opts.timeoutMs} ms`)), opts.timeoutMs);
      });
      try {
        const t = await transportFor();
        const info = await Promise.race([
          t.sendMail({
            messageId: message.messageId,
            from: message.from,
            to: message.to,
            subject: message.subject,
            text: message.text,
          }),
          overall,
        ]);
        const rejected = (info as { rejected?: unknown[] }).rejected ?? [];
        if (rejected.length > 0) throw new Error(`recipient rejected: ${String(rejected[0])}`);
        return { messageId: message.messageId, via: "smtp" };
      } finally {
        clearTimeout(timer);
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      transport?.close();
    },
  };
}
