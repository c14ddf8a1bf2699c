/**
 * The bodies of responses the service made itself, remembered beside them,
 * so the compression wrapper can size and compress a body without reading
 * the response's stream (and without turning a synchronous answer into a
 * promise).
 *
 * @module
 */

const bodies = new WeakMap<Response, string | Uint8Array>();

/**
 * Makes a response whose body is `body`, remembered for {@linkcode knownBody}.
 *
 * @example
 * ```ts
 * const response = responseWithBody("{}", { headers: { "Content-Type": "application/json" } });
 * knownBody(response); // "{}"
 * ```
 */
export function responseWithBody(
  body: string | Uint8Array<ArrayBuffer>,
  init?: ResponseInit,
): Response {
  const response = new Response(body, init);
  bodies.set(response, body);
  return response;
}

/**
 * Remembers `body` as the body of `response` (made elsewhere, e.g. a clone
 * of a template), for {@linkcode knownBody}.
 *
 * @example
 * ```ts
 * const copy = template.clone();
 * rememberBody(copy, '{"status":"ok"}');
 * ```
 */
export function rememberBody(response: Response, body: string | Uint8Array): Response {
  bodies.set(response, body);
  return response;
}

/**
 * The body a response was made with by {@linkcode responseWithBody}, else
 * `undefined` (its stream must be read).
 *
 * @example
 * ```ts
 * knownBody(new Response("x")); // undefined
 * ```
 */
export function knownBody(response: Response): string | Uint8Array | undefined {
  return bodies.get(response);
}
