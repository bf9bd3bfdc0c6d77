import { h } from "../shared/dom.ts";

/** A number field where empty means "none" (the default, or keep forever): null is shown empty and read back as null. */
export function optionalNumberInput(o: { min: number; max: number; step: number; value: number | null; placeholder: string }) {
  const { value, ...bounds } = o;
  const input = h("input", { type: "number", ...bounds, value: value === null ? "" : String(value) });
  return { input, value: () => (input.value.trim() === "" ? null : Number(input.value)) };
}
