export {
  createNotebookApp,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_STEPS,
  type NotebookAppOptions,
} from './create-notebook-app.ts';
export { type ErrorBody, STATUS_BY_CODE, toErrorResponse } from './error-response.ts';
export { etagOf } from './etag.ts';
export {
  type GuardRequestsOptions,
  guardRequests,
  LOOPBACK_HOSTS,
  tokenCookieName,
} from './guard-requests.ts';
export type { NotebookModel } from './notebook-context.ts';
export {
  DEFAULT_HOST,
  DEFAULT_PORT,
  isLoopbackHost,
  type NotebookServer,
  type StartNotebookServerOptions,
  startNotebookServer,
} from './start-notebook-server.ts';
