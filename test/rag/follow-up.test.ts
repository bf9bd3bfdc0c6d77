import { describe, expect, test } from "bun:test";
import { isFollowUp, rewriteFollowUp, subjectOf } from "../../src/rag/follow-up.ts";

const history = (...questions: string[]) => questions.map((question) => ({ question }));

describe("deterministic follow-up rewrite", () => {
  test("a question without history is returned unchanged", () => {
    expect(rewriteFollowUp("Does it include single sign-on?", [])).toBe("Does it include single sign-on?");
  });

  test("a standalone question is returned unchanged even with history", () => {
    expect(rewriteFollowUp("When is the support desk open?", history("How much does the Pro plan cost?"))).toBe(
      "When is the support desk open?",
    );
  });

  test("a pronoun is replaced by the subject of the earlier question", () => {
    expect(rewriteFollowUp("Does it include single sign-on?", history("How much does the Pro plan cost?"))).toBe(
      "Does the Pro plan include single sign-on?",
    );
    expect(rewriteFollowUp("When did they arrive?", history("Who were the Huguenots?"))).toBe("When did the Huguenots arrive?");
  });

  test("a possessive pronoun becomes the subject's possessive", () => {
    expect(rewriteFollowUp("Who was their leader?", history("Who were the Normans?"))).toBe("Who was the Normans's leader?");
  });

  test("an elliptic question carries the subject in parentheses", () => {
    expect(rewriteFollowUp("What about monthly plans?", history("What is the refund policy for annual plans?"))).toBe(
      "What about monthly plans? (the refund policy for annual plans)",
    );
    expect(rewriteFollowUp("Why?", history("Tell me about the Pro plan"))).toBe("Why? (the Pro plan)");
  });

  test("the stored standalone query of the earlier turn is preferred over its raw wording", () => {
    const turns = [{ question: "And its price?", searchQuery: "What is the price of the Pro plan?" }];
    expect(rewriteFollowUp("Does it include storage?", turns)).toBe("Does the price of the Pro plan include storage?");
  });

  test("follow-up detection and subject extraction", () => {
    expect(isFollowUp("And for students?")).toBe(true);
    expect(isFollowUp("How much?")).toBe(true);
    expect(isFollowUp("What are the opening times of the museum?")).toBe(false);
    expect(subjectOf("When were the Normans in Normandy?")).toBe("the Normans in Normandy");
    expect(subjectOf("How much does the Pro plan cost?")).toBe("the Pro plan");
  });
});
