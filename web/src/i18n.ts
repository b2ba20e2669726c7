import { createContext, useContext } from 'react';

/** UI languages. */
export type Locale = 'en' | 'zh';

const en = {
  appTitle: 'ctxloom notebook',
  tagline: 'what the model sees, file by file',
  sessions: 'Sessions',
  newSession: 'New session',
  newSessionPrompt: 'Topic of the new session',
  rename: 'Rename',
  renamePrompt: 'New name',
  delete: 'Delete',
  deleteConfirm: 'Delete session "{name}" and all its files?',
  files: 'Files',
  global: 'shared',
  chat: 'Chat',
  editor: 'Editor',
  context: 'Context',
  offlineTitle: 'Offline model',
  offlineBody:
    'No LLM is configured: answers are built from the compiled context (the most relevant passages, with their sources) and file requests run the real tools. ',
  offlineHow: 'To use a real model, restart with CTXLOOM_MODEL, e.g.',
  modelLabel: 'Model',
  send: 'Send',
  stop: 'Stop',
  inputLabel: 'Message',
  inputPlaceholder:
    'Ask something — [file.md:12:30] or [file.md#heading] adds a reference; Enter sends, Shift+Enter breaks the line',
  thinking: 'streaming…',
  partial: 'interrupted — saved as partial',
  dismiss: 'Dismiss from memory',
  restore: 'Restore to memory',
  excluded: 'excluded from memory',
  dismissed: 'dismissed by the model',
  toolCall: 'tool',
  toolInput: 'input',
  toolOutput: 'output',
  toolError: 'error',
  save: 'Save',
  saved: 'Saved',
  unsaved: 'unsaved changes',
  conflict: 'This file changed since you opened it. Your edit was not saved.',
  conflictReload: 'Load their version',
  conflictOverwrite: 'Overwrite with mine',
  noFile: 'Pick a file on the left to edit it.',
  blocks: 'Profile blocks',
  blocksHelp: 'Ticked blocks of {file} enter the context (profileBlocks).',
  preview: 'Context preview',
  used: 'used',
  window: 'window',
  reserve: 'output reserve',
  inputBudget: 'input budget',
  layer: 'Layer',
  tokens: 'Tokens',
  share: '%',
  kept: 'kept',
  trimmed: 'trimmed',
  dropped: 'dropped',
  showText: 'Show text',
  hideText: 'Hide text',
  noText: '(empty)',
  draftNote: 'Preview includes your draft message.',
  warnings: 'Warnings',
  compress: 'Compress history',
  compressed: 'Compressed {n} messages into {t} tokens',
  emptyChat: 'No messages yet. Ask about the session’s material; try “read guidance.md”.',
  reportChip: '{used} / {budget} tokens sent',
  language: '中文',
  languageLabel: 'Switch language',
  loading: 'Loading…',
  error: 'Error',
  exact: 'exact',
  estimate: 'estimate',
  fromTokens: 'from {n}',
  references: 'References',
  you: 'You',
  compaction: 'Compaction',
  assistant: 'Assistant',
};

const zh: typeof en = {
  appTitle: 'ctxloom 笔记本',
  tagline: '模型看到什么，一个文件一个文件地呈现',
  sessions: '会话',
  newSession: '新建会话',
  newSessionPrompt: '新会话的主题',
  rename: '重命名',
  renamePrompt: '新名称',
  delete: '删除',
  deleteConfirm: '删除会话「{name}」及其全部文件？',
  files: '文件',
  global: '共享',
  chat: '对话',
  editor: '编辑器',
  context: '上下文',
  offlineTitle: '离线模型',
  offlineBody: '未配置 LLM：回答由编译后的上下文生成（最相关的段落及其来源），读取文件的请求会调用真实工具。',
  offlineHow: '要使用真实模型，请设置 CTXLOOM_MODEL 后重启，例如',
  modelLabel: '模型',
  send: '发送',
  stop: '停止',
  inputLabel: '消息',
  inputPlaceholder: '输入问题 —— [file.md:12:30] 或 [file.md#标题] 可添加引用；Enter 发送，Shift+Enter 换行',
  thinking: '生成中…',
  partial: '已中断 —— 已保存部分内容',
  dismiss: '从记忆中移除',
  restore: '恢复到记忆',
  excluded: '已从记忆中排除',
  dismissed: '模型已忽略',
  toolCall: '工具',
  toolInput: '输入',
  toolOutput: '输出',
  toolError: '错误',
  save: '保存',
  saved: '已保存',
  unsaved: '未保存的修改',
  conflict: '文件在你打开后被修改过，你的修改没有保存。',
  conflictReload: '载入对方版本',
  conflictOverwrite: '用我的版本覆盖',
  noFile: '在左侧选择一个文件进行编辑。',
  blocks: '档案块',
  blocksHelp: '勾选的 {file} 块会进入上下文（profileBlocks）。',
  preview: '上下文预览',
  used: '已用',
  window: '窗口',
  reserve: '输出预留',
  inputBudget: '输入预算',
  layer: '层',
  tokens: 'Token',
  share: '%',
  kept: '保留',
  trimmed: '截断',
  dropped: '丢弃',
  showText: '显示内容',
  hideText: '隐藏内容',
  noText: '（空）',
  draftNote: '预览包含你正在输入的消息。',
  warnings: '警告',
  compress: '压缩历史',
  compressed: '已将 {n} 条消息压缩为 {t} 个 token',
  emptyChat: '还没有消息。可以就本会话的材料提问，试试“read guidance.md”。',
  reportChip: '发送 {used} / {budget} token',
  language: 'English',
  languageLabel: '切换语言',
  loading: '加载中…',
  error: '错误',
  exact: '精确',
  estimate: '估算',
  fromTokens: '原 {n}',
  references: '引用',
  you: '你',
  compaction: '压缩操作',
  assistant: '助手',
};

/** Message keys. */
export type MessageKey = keyof typeof en;

/** The dictionaries. */
export const MESSAGES: Record<Locale, typeof en> = { en, zh };

/** Translation function for one locale; `{name}` placeholders are filled from `values`. */
export type Translate = (key: MessageKey, values?: Record<string, string | number>) => string;

/** Builds {@link Translate} for a locale. */
export function translator(locale: Locale): Translate {
  return (key, values = {}) =>
    MESSAGES[locale][key].replace(/\{(\w+)\}/gu, (_, name: string) => String(values[name] ?? `{${name}}`));
}

/** The current translation function. */
export const I18nContext = createContext<{ t: Translate; locale: Locale }>({
  t: translator('en'),
  locale: 'en',
});

/** Hook: `const { t } = useI18n()`. */
export function useI18n() {
  return useContext(I18nContext);
}

/** Locale from `?lang=`, storage or the browser. */
export function initialLocale(): Locale {
  const param = new URLSearchParams(location.search).get('lang');
  if (param === 'zh' || param === 'en') return param;
  const stored = localStorage.getItem('ctxloom-locale');
  if (stored === 'zh' || stored === 'en') return stored;
  return navigator.language.toLowerCase().startsWith('zh') ? 'zh' : 'en';
}
