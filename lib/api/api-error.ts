import { errorCodes, type ErrorCode } from "./error-codes";

// The one error type services throw. statusMessage stays the seed's text word for word; `detail` says what was
// wrong (which field or parameter, and why) and reaches the client as `data.error_message`, `field` as `data.field`.
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly detail?: string;
  readonly field?: string;
  readonly data?: Record<string, unknown>;

  constructor(code: ErrorCode, options: { detail?: string; field?: string; data?: Record<string, unknown> } = {}) {
    super(options.detail ? `${code}: ${options.detail}` : code);
    this.name = "ApiError";
    this.code = code;
    this.detail = options.detail;
    this.field = options.field;
    this.data = options.data;
  }

  get statusCode(): number {
    return errorCodes[this.code].statusCode;
  }
}

export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError;
}
