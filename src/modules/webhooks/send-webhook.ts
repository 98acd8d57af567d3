// One HTTP attempt. Node's fetch keeps connections alive per origin. Redirects are not
// followed (a 3xx is a failed attempt: the signature was made for this URL, and a
// redirect could lead the payload elsewhere). The timeout covers connecting, the
// answer's headers and reading (at most 64 KiB of) its body, which is discarded.

export type SendResult = { durationMs: number; status: number | null; error: string | null };

const MAX_BODY = 64 * 1024;

export function describeSendError(error: unknown, timeoutMs: number): string {
  const e = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return `timeout: no answer within ${timeoutMs} ms`;
  const code = e?.cause?.code;
  if (code) return `connection failed: ${code}`;
  const message = e?.cause?.message ?? e?.message ?? String(error);
  return `request failed: ${message}`.slice(0, 300);
}

async function discardBody(response: Response): Promise<void> {
  if (!response.body) return;
  const reader = response.body.getReader();
  let read = 0;
  for (;;) {
    const chunk = await reader.read();
    if (chunk.done) return;
    read += chunk.value.byteLength;
    if (read > MAX_BODY) {
      await reader.cancel();
      return;
    }
  }
}

export async function sendWebhook(url: string, headers: Record<string, string>, body: string, timeoutMs: number): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.max(0, Math.round(performance.now() - started));
  let status: number | null = null;
  try {
    const response = await fetch(url, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
    status = response.status;
    // The status decides; a body that breaks off or hangs after it changes nothing.
    await discardBody(response).catch(() => {});
    if (status >= 200 && status < 300) return { durationMs: elapsed(), status, error: null };
    const location = response.headers.get('location');
    const error = status >= 300 && status < 400 ? `redirect not followed (HTTP ${status}${location ? ' to another location' : ''})` : `HTTP ${status}`;
    return { durationMs: elapsed(), status, error };
  } catch (error) {
    return { durationMs: elapsed(), status, error: describeSendError(error, timeoutMs) };
  }
}
