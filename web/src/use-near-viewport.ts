import { createContext, type RefObject, useContext, useEffect, useState } from 'react';

/**
 * The scroll container `useNearViewport` measures against (the chat's message list). Without
 * one, the page's viewport. It must be the container itself, not the viewport: an observer's
 * margin widens only its own root, and a nested list clips what lies beyond its edges.
 */
export const NearViewportRoot = createContext<RefObject<HTMLElement | null> | undefined>(undefined);

/** How far outside the visible area an element counts as near: a few screens, above and below. */
const MARGIN = '2000px 0px';

/** One observer per root for all its elements; each element's callback runs once. */
const observers = new WeakMap<
  object,
  { observer: IntersectionObserver; callbacks: Map<Element, () => void> }
>();

function observeOnce(element: Element, root: HTMLElement | null, onNear: () => void): () => void {
  const key = root ?? document;
  let shared = observers.get(key);
  if (shared === undefined) {
    const callbacks = new Map<Element, () => void>();
    const observer = new IntersectionObserver(
      (entries) => {
        for (const entry of entries) {
          if (!entry.isIntersecting) continue;
          observer.unobserve(entry.target);
          const callback = callbacks.get(entry.target);
          callbacks.delete(entry.target);
          callback?.();
        }
      },
      { root, rootMargin: MARGIN },
    );
    shared = { observer, callbacks };
    observers.set(key, shared);
  }
  const { observer, callbacks } = shared;
  callbacks.set(element, onNear);
  observer.observe(element);
  return () => {
    callbacks.delete(element);
    observer.unobserve(element);
  };
}

/**
 * Whether the element in `ref` has come within a few screens of the visible area of the
 * nearest {@link NearViewportRoot} — and stays true from then on, so work done for it (a
 * message's Markdown) is done once. `initially` starts it true (no observer at all).
 */
export function useNearViewport(ref: RefObject<Element | null>, initially = false): boolean {
  const root = useContext(NearViewportRoot);
  const [near, setNear] = useState(initially);
  // biome-ignore lint/correctness/useExhaustiveDependencies: observed once per element; the root is read when it is set
  useEffect(() => {
    const element = ref.current;
    if (near || element === null) return;
    return observeOnce(element, root?.current ?? null, () => setNear(true));
  }, [near]);
  return near;
}
