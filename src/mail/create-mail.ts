import type { Config } from "../config/index.ts";
import type { Logger } from "../log.ts";
import type { OutboxStore } from "../store/contract/index.ts";
import { createLogMailer } from "./log.mailer.ts";
import type { Mailer } from "./mailer.ts";
import { createOutboxWorker } from "./outbox.worker.ts";
import { createSmtpMailer } from "./smtp.mailer.ts";

/** Picks the driver from config (SMTP when DOCCHAT_SMTP_URL is set, else the log) and builds the outbox worker. */
export function createMail(deps: { config: Config; log: Logger; outbox: OutboxStore; mailer?: Mailer }) {
  const { config, log } = deps;
  const mailer =
    deps.mailer ?? (config.smtpUrl ? createSmtpMailer({ url: config.smtpUrl, timeoutMs: config.mailSendTimeoutMs }) : createLogMailer(log));
  const worker = createOutboxWorker({
    outbox: deps.outbox,
    mailer,
    from: config.mailFrom,
    log,
    pollMs: config.mailPollMs,
    maxAttempts: config.mailMaxAttempts,
    retryBaseMs: config.mailRetryBaseMs,
    retryMaxMs: config.mailRetryMaxMs,
    sendTimeoutMs: config.mailSendTimeoutMs,
  });
  return {
    /** false when mail is off: leads are still stored and listed, notifications only go to the log */
    enabled: mailer.kind === "smtp",
    mailer,
    worker,
    start(): void {
      if (mailer.kind === "smtp")
        log.info("mail on: owner notifications go out over SMTP", { server: mailer.description, from: config.mailFrom });
      else log.info("mail is off (DOCCHAT_SMTP_URL is not set): leads are stored and listed, but the owner is not mailed");
      worker.start();
    },
    stop: () => worker.stop(),
  };
}

export type MailServices = ReturnType<typeof createMail>;
