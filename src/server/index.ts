export { createNotebookApp, type NotebookAppOptions } from './create-notebook-app.ts';
export type { NotebookModel } from './notebook-context.ts';
export {
  DEFAULT_HOST,
  DEFAULT_PORT,
  type NotebookServer,
  type StartNotebookServerOptions,
  startNotebookServer,
} from './start-notebook-server.ts';
