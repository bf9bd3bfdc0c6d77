import { newMessageId } from "../mail/mailer.ts";
import type { Deployment, Lead, MailDraft } from "../store/contract/index.ts";

/** Owner-written text can still end up in a header (the subject): flatten it to one short line. */
const oneLine = (s: string, max: number) =>
  s
    .replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, " ")
    .trim()
    .slice(0, max);

/**
 * The owner's notification of a new lead. Visitor text goes only into the body; the headers hold the
 * owner's own address, the configured From and a subject built from the deployment name.
 */
export function composeLeadMail(input: { lead: Lead; deployment: Deployment; ownerEmail: string; from: string }): MailDraft {
  const { lead, deployment } = input;
  const body = [
    `A visitor of "${deployment.name}" asked for a person to contact them.`,
    "",
    `Email: ${lead.email}`,
    `Name: ${lead.name || "(not given)"}`,
    "",
    "The question the assistant could not answer:",
    lead.refusedQuestion || "(unknown)",
    "",
    "Their message:",
    lead.message || "(none)",
    "",
    `Conversation: ${lead.conversationId ?? "(none)"}`,
    `Lead: ${lead.id}`,
    `Time: ${new Date(lead.createdAt).toISOString()}`,
    `Deployment: ${deployment.id}`,
    "",
    `List all leads with: docchat leads list ${deployment.id}`,
    "",
  ].join("\n");
  return {
    messageId: newMessageId(input.from),
    to: input.ownerEmail,
    subject: `New contact request: ${oneLine(deployment.name, 150)}`,
    body,
  };
}
