import type { Logger } from "../log.ts";
import { assertHeaderSafe, type Mailer, type MailMessage, type SendResult } from "./mailer.ts";

/**
 * Mail off (no DOCCHAT_SMTP_URL): the notification is recorded in the log instead of sent. The body holds
 * visitor details, so only the envelope is logged; the owner reads the lead itself with `docchat leads list`.
 */
export function createLogMailer(log: Logger): Mailer {
  return {
    kind: "log",
    description: "log (mail off)",
    async send(message: MailMessage): Promise<SendResult> {
      assertHeaderSafe(message);
      log.info("mail off: notification kept in the log only", { messageId: message.messageId, to: message.to, subject: message.subject });
      return { messageId: message.messageId, via: "log" };
    },
    async close() {},
  };
}
