declare module "*.sql" {
  const text: string;
  export default text;
}
declare module "*.so" {
  const path: string;
  export default path;
}
