const EMAIL = /^[^\s@\r\n]{1,64}@[^\s@\r\n]{1,255}$/;

/** One address, no header-breaking characters: owners' sign-in emails and visitors' emails alike. */
export function isValidEmail(email: string): boolean {
  return email.length <= 320 && EMAIL.test(email) && !/[\r\n<>,;"]/.test(email);
}
