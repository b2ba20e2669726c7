export { CTXLOOM_KWARG, fromCheckpointMessage, toCheckpointMessage } from './checkpoint-message.ts';
export { toLangChain } from './to-langchain.ts';
