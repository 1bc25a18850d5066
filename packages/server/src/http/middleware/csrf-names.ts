/**
 * The CSRF cookie's and field's names and the largest form (csrf.ts), apart from the middleware: the package's
 * index exports them, and a plain stdio serve, which loads the index, must not load hono's cookie helpers with them.
 */
export const CSRF_COOKIE = 'skillport_csrf';
export const CSRF_FIELD = '_csrf';
/** Largest form read; a larger body is refused like a forged one. */
export const MAX_FORM_BYTES = 64 * 1024;
