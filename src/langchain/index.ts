export { toLangChain } from './to-langchain.ts';
