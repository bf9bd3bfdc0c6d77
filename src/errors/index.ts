export { AppError, appError, type ErrorBody, isAppError, toErrorBody } from "./app-error.ts";
export { type ErrorCode, errorCatalogue } from "./catalogue.ts";
export { localizedMessage, requestLanguage } from "./localized-message.ts";
