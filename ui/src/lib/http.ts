import { announceCatchingUp } from './catching-up';
import { forgetEarlyAnswers, takeEarlyAnswer } from './early-answers';

export type FieldErrors = Record<string, string>;

/** An answer other than 2xx, carrying the server's `{ error: { code, message, fields? } }`. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fields?: FieldErrors,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

interface ErrorBody {
  error?: { code?: string; message?: string; fields?: FieldErrors };
}

async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export async function request<T>(
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  signal?: AbortSignal,
): Promise<T> {
  let response: Response;
  try {
    const ask = () =>
      fetch(path, {
        method,
        credentials: 'same-origin',
        headers:
          body === undefined
            ? { Accept: 'application/json' }
            : { Accept: 'application/json', 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
      });
    // An answer asked for as the page opened is taken when it succeeded; anything else is asked
    // again. Any POST (a sign-in, a sign-out, a change) makes what was asked before it stale.
    if (method === 'POST') forgetEarlyAnswers();
    const early = method === 'GET' ? takeEarlyAnswer(path) : undefined;
    response = await (early ? early.then((answer) => (answer.ok ? answer : ask()), ask) : ask());
  } catch (cause) {
    if (cause instanceof DOMException && cause.name === 'AbortError') throw cause;
    throw new HttpError(0, 'network', 'The server could not be reached. Check your connection and try again.');
  }
  const data = await readJson(response);
  if (!response.ok) {
    const error = (data as ErrorBody | undefined)?.error;
    throw new HttpError(
      response.status,
      error?.code ?? `http_${response.status}`,
      error?.message ?? `The request failed (${response.status} ${response.statusText}).`,
      error?.fields,
    );
  }
  if (method === 'POST' && (data as { visible?: unknown } | undefined)?.visible === false) announceCatchingUp();
  return data as T;
}

export const getJson = <T>(path: string, signal?: AbortSignal) => request<T>('GET', path, undefined, signal);
export const postJson = <T>(path: string, body: unknown = {}) => request<T>('POST', path, body);

export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return 'Something went wrong.';
}
