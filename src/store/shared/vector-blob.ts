/** A stored vector (a BLOB of float32s, as sqlite-vec and the pgvector-free tables keep it) as its own Float32Array. */
export const vectorFromBlob = (b: Uint8Array): Float32Array => new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
