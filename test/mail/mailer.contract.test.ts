import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createLogger } from "../../src/log.ts";
import { createLogMailer } from "../../src/mail/log.mailer.ts";
import { type Mailer, type MailMessage, newMessageId, UnsafeMailError } from "../../src/mail/mailer.ts";
import { createSmtpMailer } from "../../src/mail/smtp.mailer.ts";
import { type SmtpSink, startSmtpSink } from "../helpers/smtp-sink.ts";

let sink: SmtpSink;
beforeAll(async () => {
  sink = await startSmtpSink();
});
afterAll(async () => {
  await sink.stop();
});

/** Each driver plus a way to read back what it delivered (the SMTP sink, or the log lines). */
interface DriverCase {
  name: string;
  make(): Mailer;
  delivered(): { messageId: string; to: string; subject: string }[];
}

const logLines: Record<string, unknown>[] = [];
const cases: DriverCase[] = [
  {
    name: "smtp",
    make: () => createSmtpMailer({ url: sink.url, timeoutMs: 5000 }),
    delivered: () => sink.messages.map((m) => ({ messageId: m.messageId, to: m.envelopeTo[0] ?? "", subject: m.subject })),
  },
  {
    name: "log",
    make: () => createLogMailer(createLogger("info", (line) => logLines.push(JSON.parse(line)))),
    delivered: () =>
      logLines.filter((l) => l.messageId).map((l) => ({ messageId: String(l.messageId), to: String(l.to), subject: String(l.subject) })),
  },
];

const message = (over: Partial<MailMessage> = {}): MailMessage => ({
  messageId: newMessageId("docchat@example.com"),
  from: "docchat@example.com",
  to: "owner@example.com",
  subject: "New contact request: Shop",
  text: "Visitor text\nover two lines",
  ...over,
});

describe.each(cases)("the $name mail driver", (c) => {
  test("delivers a message under the Message-ID it was given", async () => {
    const mailer = c.make();
    const m = message();
    const result = await mailer.send(m);
    expect(result.messageId).toBe(m.messageId);
    expect(result.via).toBe(mailer.kind);
    expect(c.delivered().find((d) => d.messageId === m.messageId)).toEqual({
      messageId: m.messageId,
      to: "owner@example.com",
      subject: m.subject,
    });
    await mailer.close();
  });

  test("refuses a line break in the subject, recipient or sender before anything goes out", async () => {
    const mailer = c.make();
    const before = c.delivered().length;
    for (const bad of [
      { subject: "Hi\r\nBcc: victim@example.com" },
      { to: "owner@example.com\nBcc: x@example.com" },
      { from: "a@example.com\rX-Evil: 1" },
    ]) {
      const err = await mailer.send(message(bad)).catch((e) => e);
      expect(err).toBeInstanceOf(UnsafeMailError);
    }
    expect(c.delivered().length).toBe(before);
    await mailer.close();
  });

  test("refuses a malformed Message-ID", async () => {
    const mailer = c.make();
    const err = await mailer.send(message({ messageId: "<a@b>\r\nBcc: x@y" })).catch((e) => e);
    expect(err).toBeInstanceOf(UnsafeMailError);
    await mailer.close();
  });

  test("can be closed twice", async () => {
    const mailer = c.make();
    await mailer.close();
    await mailer.close();
    expect(mailer.description).not.toContain("@");
  });
});

describe("the smtp mail driver only", () => {
  test("keeps multi-line body text in the body and out of the headers", async () => {
    const mailer = createSmtpMailer({ url: sink.url, timeoutMs: 5000 });
    const m = message({ text: "Name: Eve\r\nBcc: victim@example.com\nSubject: forged" });
    await mailer.send(m);
    const got = sink.messages.find((x) => x.messageId === m.messageId);
    expect(got?.text).toContain("Bcc: victim@example.com");
    expect(got?.headers.some((h) => /^bcc:/i.test(h))).toBe(false);
    expect(got?.headers.filter((h) => /^subject:/i.test(h))).toEqual([`Subject: ${m.subject}`]);
    expect(got?.envelopeTo).toEqual(["owner@example.com"]);
    await mailer.close();
  });

  test("rejects when the server is unreachable, so the outbox can retry", async () => {
    const down = await startSmtpSink();
    await down.stop();
    const mailer = createSmtpMailer({ url: down.url, timeoutMs: 5000 });
    const err = await mailer.send(message()).catch((e) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(UnsafeMailError);
    await mailer.close();
  });

  test("never logs credentials from the URL in its description", () => {
    const mailer = createSmtpMailer({ url: "smtps://user:s3cret@mail.example.com:465", timeoutMs: 5000 });
    expect(mailer.description).toBe("smtps://mail.example.com:465");
  });
});
