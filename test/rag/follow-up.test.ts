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
    expect(rewriteFollowUp("Who was their leader?", history("Who were the Normans?"))).toBe("Who was the Normans’ leader?");
    expect(rewriteFollowUp("Who was its founder?", history("When was the museum built?"))).toBe("Who was the museum's founder?");
  });

  test("an elliptic question changes one slot of the previous question and stays a readable question", () => {
    const after = (q: string, previous: string) => rewriteFollowUp(q, history(previous));
    // the words before a shared noun
    expect(after("What about monthly plans?", "What is the refund policy for annual plans?")).toBe(
      "What is the refund policy for monthly plans?",
    );
    expect(after("And handgun checks?", "How many long gun checks were there in Pennsylvania in November 2015?")).toBe(
      "How many handgun checks were there in Pennsylvania in November 2015?",
    );
    // a year, a month, a symbol
    expect(after("And in 2012?", "How many visitors came in 2010?")).toBe("How many visitors came in 2012?");
    expect(after("And in October?", "How many permit checks did Kentucky have in November 2015?")).toBe(
      "How many permit checks did Kentucky have in October 2015?",
    );
    expect(after("And what about $! ?", "What does $$ expand to in bash?")).toBe("What does $! expand to in bash?");
    // a name after a preposition, leaving the rest of the question alone
    expect(after("And in Texas?", "What was the total number of recipients in California in FY09?")).toBe(
      "What was the total number of recipients in Texas in FY09?",
    );
    // the last noun phrase
    expect(after("And the mallets?", "In the Queen's croquet game, what did they use as balls?")).toBe(
      "In the Queen's croquet game, what did they use as mallets?",
    );
    // "the X one" borrows the previous question's noun; "the one about Y" replaces what it was about
    expect(after("What's the threshold for the altitude one?", "When does the IAS DISAGREE alert come on?")).toBe(
      "What's the threshold for the altitude alert?",
    );
    expect(after("And the one about what you believe?", "What's the term for how you acquire knowledge?")).toBe(
      "What's the term for what you believe?",
    );
    // nothing fits: the subject in parentheses
    expect(after("Why?", "Tell me about the Pro plan")).toBe("Why? (the Pro plan)");
  });

  test("he, she, his and her point to the person the previous answer or question named", () => {
    expect(
      rewriteFollowUp("What was his assistant called?", [
        { question: "Who comes to Holmes for help in The Red-Headed League?", answer: "Mr. Jabez Wilson, a red-headed pawnbroker." },
      ]),
    ).toBe("What was Mr. Jabez Wilson's assistant called?");
    expect(rewriteFollowUp("What is her job?", history("How much will Siobhan gain from the Budget?"))).toBe("What is Siobhan's job?");
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
