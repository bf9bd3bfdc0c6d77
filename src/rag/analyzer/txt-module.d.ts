/** Word lists imported as text (`with { type: "text" }`), so they ship inside the compiled binary. */
declare module "*.txt" {
  const text: string;
  export default text;
}
