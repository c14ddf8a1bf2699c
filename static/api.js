// The API client: same-origin JSON requests, problem+json errors as ApiError.

/** A failed API request: HTTP status, the problem document and Retry-After (seconds). */
export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {{ title?: string, detail?: string, request_id?: string,
   *   errors?: { parameter: string, message: string }[] }} problem
   * @param {number | null} retryAfter
   */
  constructor(status, problem, retryAfter) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    this.name = "ApiError";
    this.status = status;
    this.problem = problem;
    this.retryAfter = retryAfter;
  }
}

/** The request never got an answer (offline, server down). */
export class NetworkError extends Error {
  constructor() {
    super("The server could not be reached");
    this.name = "NetworkError";
  }
}

/**
 * GETs `path` with `params` and returns the parsed JSON body.
 * @param {string} path
 * @param {URLSearchParams | Record<string, string>} [params]
 * @param {AbortSignal} [signal]
 * @returns {Promise<any>}
 */
export async function getJson(path, params, signal) {
  const query = new URLSearchParams(params).toString();
  const url = query ? `${path}?${query}` : path;
  let response;
  try {
    response = await fetch(url, { headers: { Accept: "application/json" }, signal });
  } catch (error) {
    if (error instanceof DOMException && error.name === "AbortError") throw error;
    throw new NetworkError();
  }
  if (response.ok) return await response.json();
  let problem = { title: response.statusText };
  try {
    const body = await response.json();
    if (body && typeof body === "object") problem = body;
  } catch {
    // Not JSON: keep the status text.
  }
  const retry = Number.parseInt(response.headers.get("retry-after") ?? "", 10);
  throw new ApiError(response.status, problem, Number.isFinite(retry) ? retry : null);
}

/** Whether an error is an aborted request (superseded by a newer one). */
export function isAbort(error) {
  return error instanceof DOMException && error.name === "AbortError";
}
