export type {
  ContextReportData,
  MessageContextSummary,
  MessageCuration,
  NotebookMessageMetadata,
  NotebookUIMessage,
  ReportedReference,
} from './notebook-ui-message.ts';
export { type ToStoredMessagesOptions, toStoredMessages } from './to-stored-messages.ts';
export { type ToUiMessagesOptions, toUiMessages } from './to-ui-messages.ts';
