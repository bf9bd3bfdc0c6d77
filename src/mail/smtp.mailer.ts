import nodemailer from "nodemailer";
import { assertHeaderSafe, type Mailer, type MailMessage, type SendResult } from "./mailer.ts";

/** Where the mail goes without the credentials, for logs. */
export function describeSmtpUrl(url: string): string {
  const u = new URL(url);
  return `${u.protocol}//${u.hostname}${u.port ? `:${u.port}` : ""}`;
}

/**
 * Delivers over SMTP with nodemailer (smtp:// with STARTTLS when offered, smtps:// for implicit TLS).
 * A fresh connection per message keeps a half-dead pooled socket from eating mail; owner mail is rare.
 */
export function createSmtpMailer(opts: { url: string; timeoutMs: number }): Mailer {
  const transport = nodemailer.createTransport({
    url: opts.url,
    connectionTimeout: opts.timeoutMs,
    greetingTimeout: opts.timeoutMs,
    socketTimeout: opts.timeoutMs,
    disableFileAccess: true,
    disableUrlAccess: true,
  } as Parameters<typeof nodemailer.createTransport>[0]);
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
        const info = await Promise.race([
          transport.sendMail({
            messageId: message.messageId,
            from: message.from,
            to: message.to,
            subject: message.subject,
            text: message.text,
          }),
          overall,
        ]);
        if (info.rejected.length > 0) throw new Error(`recipient rejected: ${String(info.rejected[0])}`);
        return { messageId: message.messageId, via: "smtp" };
      } finally {
        clearTimeout(timer);
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      transport.close();
    },
  };
}
