export {
  CONTEXT_REPORT_PART,
  type ContextReportData,
  type MessageContextSummary,
  type MessageCuration,
  type NotebookMessageMetadata,
  type NotebookUIMessage,
  type ReportedReference,
} from './notebook-ui-message.ts';
export {
  INTERRUPTED_TOOL_OUTPUT,
  type ToStoredMessagesOptions,
  toStoredMessages,
} from './to-stored-messages.ts';
export { type ToUiMessagesOptions, toUiMessages } from './to-ui-messages.ts';
