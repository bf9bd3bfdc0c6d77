export { AppError, appError, isAppError, toErrorBody, type ErrorBody } from "./app-error.ts";
export { errorCatalogue, type ErrorCode } from "./catalogue.ts";
