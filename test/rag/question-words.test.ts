import { describe, expect, test } from "bun:test";
import { holdsAnswerType } from "../../src/rag/answer-type.ts";
import { scoreUnits } from "../../src/rag/answer-units.ts";
import { questionShape } from "../../src/rag/question-shape.ts";
import { foreignQuestion } from "../../src/rag/question-words.ts";
import { segmentPassage } from "../../src/rag/sentences.ts";
import { stem, withLang } from "../../src/rag/terms.ts";

describe("what a question in another language asks for", () => {
  test("interrogatives in German, French, Spanish, Italian, Portuguese and Dutch give the answer kind", () => {
    const cases: [string, string | null, string?][] = [
      ["Wann findet die Klausur statt?", "time"],
      ["Wie viele Studierende haben teilgenommen?", "number"],
      ["Wie alt ist der Autor?", "number", "age"],
      ["Auf wessen Vorlesung basiert das Skript?", "name"],
      ["Wo kann man den Beweis nachlesen?", "place"],
      ["Warum wurde die Frist verlängert?", "reason"],
      ["Quand la bibliothèque ouvre-t-elle ?", "time"],
      ["Combien de membres compte l'association ?", "number"],
      ["Qui a écrit ce rapport ?", "name"],
      ["Où se trouve le dépôt ?", "place"],
      ["Pourquoi le contrat a-t-il été résilié ?", "reason"],
      ["¿Cuándo abre la biblioteca?", "time"],
      ["¿Cuántos empleados tiene la empresa?", "number"],
      ["¿Quién firmó el contrato?", "name"],
      ["¿Dónde está la oficina principal?", "place"],
      ["¿Por qué se canceló el vuelo?", "reason"],
      ["Quando apre la biblioteca comunale?", "time"],
      ["Quantos funcionários tem a empresa?", "number"],
      ["Waarom is de vergadering uitgesteld?", "reason"],
    ];
    for (const [q, kind, focusKind] of cases) {
      const f = foreignQuestion(q);
      expect(`${q} → ${f?.kind ?? null} ${f?.focusKind ?? ""}`).toBe(`${q} → ${kind} ${focusKind ?? ""}`);
    }
  });

  test("a question about a price asks for an amount of money, named in the question's language", () => {
    for (const q of [
      "Was kostet eine gedruckte Ausgabe des Skripts in A5?",
      "Combien coûte l'abonnement annuel ?",
      "¿Cuánto cuesta la entrada al museo?",
    ]) {
      const f = foreignQuestion(q);
      expect(f?.focusKind).toBe("money");
      expect(f?.focus[0]).toContain(stem("euro", f?.lang));
    }
    expect(foreignQuestion("Was kostet das?")?.focus[0]).toContain(stem("kostet", "de"));
  });

  test("English questions keep question-shape's own reading", () => {
    for (const q of ["When does the depot open?", "Who wrote the report?", "What does the annual plan cost?"])
      expect(foreignQuestion(q)).toBeNull();
    expect(questionShape("Who wrote the report?").kind).toBe("name");
  });

  test("dates in those languages answer a when-question", () => {
    const q = "Wann beginnt das Wintersemester?";
    for (const s of [
      "Es beginnt am 14. Oktober.",
      "Die Vorlesung ist montags um 10 Uhr.",
      "Le cours commence en janvier.",
      "Dura 3 semanas.",
      "Die Kaution wird innerhalb von sechs Monaten zurückgezahlt.",
    ])
      expect(holdsAnswerType("time", s, q)).toBe(true);
    expect(holdsAnswerType("time", "Das Skript ist kostenlos verfügbar.", q)).toBe(false);
  });

  test("counts written as words in those languages answer a how-many question; English words that look alike do not", () => {
    expect(holdsAnswerType("number", "Les comprimés se prennent deux fois par jour.", "Combien de fois prendre le comprimé ?")).toBe(true);
    expect(holdsAnswerType("number", "Las pastillas se toman dos veces al día.", "¿Cuántas veces se toma la pastilla?")).toBe(true);
    expect(holdsAnswerType("number", "The delay was due to the weather.", "How many flights were delayed?")).toBe(false);
    expect(holdsAnswerType("number", "Der Mieter zahlt eine Kaution.", "Wie viele Monatsmieten beträgt die Kaution?")).toBe(false);
  });
});

describe("passages the gate reads in any language", () => {
  test("a numbered title is a heading, and a label under it keeps it: the proof's sentence is under its theorem", () => {
    const text =
      "Satz 5.5 (Satz von Gauß-Bonnet)\n\nSei S eine kompakte Fläche. Dann gilt:\n\n∫ K(s)dA = 2πχ(S)\n\nS\n\nBeweis: Der Beweis wird hier nicht geführt. Er kann in „Elementare Differentialgeometrie“ von Christian Bär nachgelesen werden.";
    const units = segmentPassage(text);
    expect(units[0]).toMatchObject({ kind: "heading", text: "Satz 5.5 (Satz von Gauß-Bonnet)" });
    // a lone letter left over from a formula is not a heading
    expect(units.find((u) => u.text === "S")?.kind).not.toBe("heading");
    expect(units.find((u) => u.text === "Beweis")).toMatchObject({ kind: "heading", label: true });
    const q = "Wo kann man den Beweis des Satzes von Gauß-Bonnet nachlesen?";
    const weights = withLang(new Map(["beweis", "satz", "gauß", "bonnet", "nachlesen"].map((w, i) => [stem(w, "de"), 3 + i])), "de");
    const scored = scoreUnits(weights, q, questionShape(q), [{ text, source: "GeoTopo", headingPath: "5 Krümmung" }]);
    const best = scored.reduce((a, b) => (b.score > a.score ? b : a));
    expect(best.unit.text).toStartWith("Er kann in „Elementare Differentialgeometrie“");
  });

  test("a book's index names pages, not answers: its line weighs less than a sentence that says the same", () => {
    const q = "Wo steht der Satz von Gauß-Bonnet?";
    const weights = withLang(new Map(["satz", "gauß", "bonnet"].map((w) => [stem(w, "de"), 4])), "de");
    const line = "Satz von homotope, 44 Gauß-Bonnet, 98 inverser, 48 Scheitelwinkel, 86 Seite, 34";
    const score = (headingPath: string) =>
      Math.max(...scoreUnits(weights, q, questionShape(q), [{ text: line, source: "Skript", headingPath }]).map((u) => u.score));
    expect(score("Stichwortverzeichnis")).toBeCloseTo(score("5 Krümmung") / 2, 5);
  });
});
