/** nodemailer (~0.4 MB of code): a separate entry point of the compiled binary, loaded by loadNodemailer(). */
export { default } from "nodemailer";
