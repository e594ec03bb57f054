/// <reference lib="dom" />
// Pages and parts of pages loaded as they are first shown: the fleet page, the one a user opens first, evaluates only its own modules, not the editor's.

import { html } from "htm/preact";
import type { ComponentType, VNode } from "preact";
import { useEffect, useState } from "preact/hooks";

/** A component of a module loaded later: `load` imports the module and hands back the component (one function a component, made once). */
export type Later<P> = () => Promise<ComponentType<P>>;

/** Each component once loaded: drawn at once when its page is opened again. */
const loaded = new Map<Later<never>, ComponentType<never>>();

/**
 * `load`'s component drawn with `props`: "Loading…" while its modules load (a moment, once), then the component; why, and a way to try again, if the
 * modules could not be loaded (the service was restarted with another version, or the network dropped).
 */
export function Lazy<P>(props: { load: Later<P>; props: P }): VNode {
  const [, setLoaded] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const component = loaded.get(props.load as Later<never>) as ComponentType<P> | undefined;
  useEffect(() => {
    if (component !== undefined || error !== null) return;
    let gone = false;
    props.load().then(
      (c) => {
        loaded.set(props.load as Later<never>, c as ComponentType<never>);
        if (!gone) setLoaded((n) => n + 1);
      },
      (e: unknown) => {
        if (!gone) setError(e instanceof Error ? e.message : String(e));
      },
    );
    return () => {
      gone = true;
    };
  }, [props.load, component, error]);
  if (component !== undefined) return html`<${component} ...${props.props} />`;
  if (error !== null)
    return html`<p class="error" role="alert">Could not load this part of the dashboard: ${error} <button type="button" onClick=${() => setError(null)}>Try again</button></p>`;
  return html`<p class="muted">Loading…</p>`;
}
