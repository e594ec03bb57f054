/// <reference lib="dom" />
// Labelled form fields of the dashboard's editors (a window, a fleet window, a cluster's patch of one): a text input or a select bound to a spec path, with its
// problems.

import { html } from "htm/preact";
import type { VNode } from "preact";
import type { FieldProblem } from "../../../api/index.ts";
import { problemsAt } from "./draft.ts";

/** Messages for a field, tied to it for screen readers. */
export function FieldError(props: { id: string; messages: string[] }): VNode | null {
  if (props.messages.length === 0) return null;
  return html`<span class="field-error" id=${props.id} role="note">⚠ ${props.messages.join("; ")}</span>`;
}

/** A labelled text input bound to a spec path. */
export function Field(props: {
  label: string;
  path: string;
  value: string;
  problems: readonly FieldProblem[];
  onInput: (v: string) => void;
  placeholder?: string;
  list?: string;
  hint?: string;
}): VNode {
  const messages = problemsAt(props.problems, props.path);
  const id = `f-${props.path.replace(/[^a-zA-Z0-9]+/g, "-")}`;
  return html`<label class="field">
    <span class="field-label">${props.label}</span>
    <input
      id=${id}
      data-path=${props.path}
      value=${props.value}
      placeholder=${props.placeholder ?? ""}
      list=${props.list}
      aria-invalid=${messages.length > 0}
      aria-describedby=${messages.length > 0 ? `${id}-error` : undefined}
      onInput=${(e: Event) => props.onInput((e.target as HTMLInputElement).value)}
    />
    ${props.hint ? html`<span class="hint">${props.hint}</span>` : null}
    <${FieldError} id=${`${id}-error`} messages=${messages} />
  </label>`;
}

export function Select(props: { label: string; value: string; options: readonly string[]; onChange: (v: string) => void; path?: string }): VNode {
  return html`<label class="field">
    <span class="field-label">${props.label}</span>
    <select data-path=${props.path} value=${props.value} onChange=${(e: Event) => props.onChange((e.target as HTMLSelectElement).value)}>
      ${props.options.map((o) => html`<option value=${o} selected=${o === props.value}>${o}</option>`)}
    </select>
  </label>`;
}

/** Every IANA zone this browser knows, for a datalist. */
export const ZONES: string[] = (Intl as unknown as { supportedValuesOf?: (k: string) => string[] }).supportedValuesOf?.("timeZone") ?? [];
