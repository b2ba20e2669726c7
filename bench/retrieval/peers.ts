import { create, insertMultiple, search as oramaSearch } from '@orama/orama';
import { Charset, Encoder, Index } from 'flexsearch';
import EnglishPreset from 'flexsearch/lang/en';
import MiniSearch from 'minisearch';
import { CHINESE_STOPWORDS, DEFAULT_STOPWORDS } from '../../src/retrieval/stopwords.ts';
import type { EvalDocument } from './datasets.ts';

/** A search engine under test: builds over documents, returns ranked ids. */
export interface Searcher {
  search(query: string, limit: number): string[] | Promise<string[]>;
}

/** One engine with one configuration, described in `settings` for the report. */
export interface Engine {
  name: string;
  settings: string;
  build(documents: EvalDocument[]): Searcher;
}

const wordSegmenter = new Intl.Segmenter('zh', { granularity: 'word' });

/** Chinese-aware word tokenizer peers are given: `Intl.Segmenter` words, lowercase. */
export function segmenterWords(text: string): string[] {
  const words: string[] = [];
  for (const line of text.split(/\n+/)) {
    for (const segment of wordSegmenter.segment(line)) {
      if (segment.isWordLike === true) words.push(segment.segment.toLowerCase());
    }
  }
  return words;
}

const stopwordList = [...DEFAULT_STOPWORDS];

/** MiniSearch 7: BM25+, OR semantics, no prefix/fuzzy (its defaults), stopwords-iso en+zh. */
export function miniSearchEngine(options: { chinese: boolean }): Engine {
  return {
    name: 'minisearch',
    settings: `fields [text]; processTerm lowercase + stopwords-iso en+zh; combineWith OR; prefix/fuzzy off${options.chinese ? '; tokenize Intl.Segmenter words' : '; default tokenizer'}`,
    build(documents) {
      const engine = new MiniSearch<EvalDocument>({
        fields: ['text'],
        processTerm: (term) => {
          const lower = term.toLowerCase();
          return DEFAULT_STOPWORDS.has(lower) ? null : lower;
        },
        ...(options.chinese ? { tokenize: segmenterWords } : {}),
      });
      engine.addAll(documents);
      return {
        search: (query, limit) =>
          engine
            .search(query)
            .slice(0, limit)
            .map((hit) => String(hit.id)),
      };
    },
  };
}

/** Orama 3: BM25, its English stemmer on, stopwords-iso en+zh; prefix matching as default or exact. */
export function oramaEngine(options: { chinese: boolean; exact: boolean }): Engine {
  return {
    name: 'orama',
    settings: `schema {text:string}; ${options.chinese ? 'custom tokenizer Intl.Segmenter words + stopwords-iso en+zh' : 'tokenizer english, stemming on, stopWords stopwords-iso en+zh'}; ${options.exact ? 'exact: true' : 'prefix matching (default)'}; threshold 1 (OR)`,
    build(documents) {
      const tokenizer = options.chinese
        ? {
            language: 'english',
            normalizationCache: new Map<string, string>(),
            tokenize: (raw: string) => segmenterWords(raw).filter((word) => !DEFAULT_STOPWORDS.has(word)),
          }
        : { language: 'english' as const, stemming: true, stopWords: stopwordList };
      const db = create({ schema: { text: 'string' } as const, components: { tokenizer } });
      const inserted = insertMultiple(
        db,
        documents.map((document) => ({ id: document.id, text: document.text })),
      );
      if (inserted instanceof Promise) throw new Error('orama insert went async');
      return {
        search(query, limit) {
          const result = oramaSearch(db, { term: query, properties: ['text'], limit, exact: options.exact });
          if (result instanceof Promise) throw new Error('orama search went async');
          return result.hits.map((hit) => hit.id);
        },
      };
    },
  };
}

/** FlexSearch 0.8: preset `score`, strict tokenizer, `suggest: true` (else it ANDs terms). */
export function flexSearchEngine(options: { chinese: boolean }): Engine {
  return {
    name: 'flexsearch',
    settings: `preset score; tokenize strict; search suggest: true; ${options.chinese ? 'encoder Charset.CJK + stopwords-iso zh filter' : 'encoder Charset.LatinBalance + flexsearch/lang/en (its stemmer) + stopwords-iso en filter'}`,
    build(documents) {
      const encoder = options.chinese
        ? new Encoder(Charset.CJK).assign({ filter: CHINESE_STOPWORDS as Set<string> })
        : new Encoder(Charset.LatinBalance)
            .assign(EnglishPreset)
            .assign({ filter: DEFAULT_STOPWORDS as Set<string> });
      const index = new Index({ preset: 'score', tokenize: 'strict', encoder });
      const ids: string[] = [];
      documents.forEach((document, position) => {
        ids.push(document.id);
        index.add(position, document.text);
      });
      return {
        search(query, limit) {
          const result = index.search(query, { limit, suggest: true }) as number[];
          return result.map((position) => ids[position] as string);
        },
      };
    },
  };
}

/**
 * Disclosure run: a peer given the same neighbour-context documents ctxloom's conversation
 * index builds (previous turn + own turn twice + next turn), ids unchanged.
 */
export function withNeighbourContext(engine: Engine): Engine {
  return {
    name: `${engine.name}+context`,
    settings: `${engine.settings}; documents = previous + own×2 + next turn`,
    build(documents) {
      return engine.build(
        documents.map((document, index) => ({
          id: document.id,
          text: [
            documents[index - 1]?.text ?? '',
            document.text,
            document.text,
            documents[index + 1]?.text ?? '',
          ].join('\n'),
        })),
      );
    },
  };
}
