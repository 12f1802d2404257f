/**
 * Reading an HTTP response body with a byte limit, shared by the API client and the preview
 * downloads: a service or an image host that sends more than it should is cut off as soon as it
 * passes the limit, never buffered whole.
 */

/**
 * The bytes of `body`, or null as soon as they pass `maxBytes` (the stream is then cancelled).
 * @param body a fetch Response's body (null: no body)
 * @param maxBytes the most bytes accepted
 */
export async function readCappedBody(body: ReadableStream<Uint8Array> | null, maxBytes: number): Promise<Uint8Array | null> {
  if (body === null) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}
