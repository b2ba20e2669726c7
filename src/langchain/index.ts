export { CTXLOOM_KWARG, fromLangChain } from './from-langchain.ts';
export { toLangChain } from './to-langchain.ts';
