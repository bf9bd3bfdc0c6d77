declare module "*.css" {
  const text: string;
  export default text;
}
/** pdf.js's browser build and worker, embedded as text for the citation viewer (server/routes/citations.routes.ts). */
declare module "*.min.mjs" {
  const text: string;
  export default text;
}
