export function startsWithBytes(bytes: Uint8Array, prefix: ArrayLike<number>): boolean {
  if (bytes.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[i] !== prefix[i]) return false;
  return true;
}

export function indexOfBytes(haystack: Uint8Array, needle: Uint8Array): number {
  const first = needle[0];
  if (first === undefined) return 0;
  for (let i = haystack.indexOf(first); i !== -1 && i + needle.length <= haystack.length; i = haystack.indexOf(first, i + 1)) {
    let j = 1;
    while (j < needle.length && haystack[i + j] === needle[j]) j++;
    if (j === needle.length) return i;
  }
  return -1;
}

const CFB_MAGIC = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];
// The stream name "EncryptedPackage" in UTF-16LE, as an Office-encrypted OOXML file stores it in its CFB directory.
const ENCRYPTED_PACKAGE = new Uint8Array(Buffer.from("EncryptedPackage", "utf16le"));

/** OLE2 compound file: legacy .doc/.xls, or a password-protected DOCX/XLSX wrapped by Office. */
export function isCfb(bytes: Uint8Array): boolean {
  return startsWithBytes(bytes, CFB_MAGIC);
}

export function isEncryptedOoxml(bytes: Uint8Array): boolean {
  return isCfb(bytes) && indexOfBytes(bytes, ENCRYPTED_PACKAGE) !== -1;
}
