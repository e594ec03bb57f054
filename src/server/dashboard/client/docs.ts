/// <reference lib="dom" />
// Interactive API docs at /docs: every operation of /openapi.json, with a form to try it against this service.

import { html, render } from "htm/preact";
import type { VNode } from "preact";
import { useEffect, useState } from "preact/hooks";
import { initialToken, storeToken } from "./api.ts";

type Obj = Record<string, unknown>;
interface Parameter {
  name: string;
  in: "path" | "query" | "header";
  required?: boolean;
  description?: string;
}
interface Operation {
  operationId: string;
  summary: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Obj }> };
  responses: Record<string, { description: string }>;
}

const EXAMPLES: Record<string, unknown> = {
  putWindow: {
    spec: { timeZone: "Europe/Berlin", schedules: [{ start: "0 8 * * MON", end: "0 17 * * THU" }], targets: [{ kind: "Kustomization", name: "apps-rw" }] },
    reason: "Open Monday to Thursday",
  },
  patchWindow: { spec: { closeGracePeriod: "10m" }, reason: "Grace for long jobs" },
  createOverride: { window: "apps-rw", action: "Open", duration: "2h", reason: "Hotfix 4711" },
  preview: { spec: { timeZone: "Europe/Berlin", schedules: [{ start: "0 22 * * *", duration: "2h" }] } },
};

function resolve(doc: Obj, schema: Obj | undefined): Obj | undefined {
  const ref = schema?.$ref;
  if (typeof ref !== "string") return schema;
  return ((doc.components as Obj).schemas as Obj)[ref.split("/").pop() as string] as Obj;
}

function Try(props: { doc: Obj; path: string; method: string; op: Operation; token: string }): VNode {
  const [params, setParams] = useState<Record<string, string>>({});
  const [body, setBody] = useState(EXAMPLES[props.op.operationId] === undefined ? "" : JSON.stringify(EXAMPLES[props.op.operationId], null, 2));
  const [answer, setAnswer] = useState<string | null>(null);
  const send = async (e: Event): Promise<void> => {
    e.preventDefault();
    let url = props.path;
    const query = new URLSearchParams();
    const headers: Record<string, string> = {};
    for (const p of props.op.parameters ?? []) {
      const v = params[p.name] ?? "";
      if (p.in === "path") url = url.replace(`{${p.name}}`, encodeURIComponent(v));
      else if (v !== "" && p.in === "query") query.set(p.name, v);
      else if (v !== "" && p.in === "header") headers[p.name] = v;
    }
    if (props.token !== "") headers.Authorization = `Bearer ${props.token}`;
    const hasBody = props.op.requestBody !== undefined;
    // PATCH takes a merge patch or a JSON Patch, not plain JSON: send the first media type the operation names.
    if (hasBody) headers["Content-Type"] = Object.keys(props.op.requestBody?.content ?? {})[0] ?? "application/json";
    const q = query.toString();
    const response = await fetch(`${url}${q === "" ? "" : `?${q}`}`, { method: props.method.toUpperCase(), headers, body: hasBody ? body : null });
    const text = await response.text();
    let shown = text;
    try {
      shown = JSON.stringify(JSON.parse(text), null, 2);
    } catch {
      // Not JSON (a calendar, metrics): shown as it is.
    }
    setAnswer(`${response.status} ${response.statusText}\n\n${shown}`);
  };
  return html`<form class="try" onSubmit=${(e: Event) => void send(e)}>
    ${(props.op.parameters ?? []).map(
      (p) => html`<label class="field"><span class="field-label">${p.name} <span class="muted">(${p.in}${p.required === true ? ", required" : ""})</span></span>
        <input value=${params[p.name] ?? ""} placeholder=${p.description ?? ""} onInput=${(e: Event) => setParams({ ...params, [p.name]: (e.target as HTMLInputElement).value })} /></label>`,
    )}
    ${
      props.op.requestBody !== undefined
        ? html`<label class="field"><span class="field-label">Body (JSON)</span><textarea rows="8" value=${body} onInput=${(e: Event) => setBody((e.target as HTMLTextAreaElement).value)}></textarea></label>`
        : null
    }
    <button type="submit" class="primary">Send</button>
    ${answer !== null ? html`<pre class="answer" aria-live="polite">${answer}</pre>` : null}
  </form>`;
}

function Docs(): VNode {
  const [doc, setDoc] = useState<Obj | null>(null);
  const [token, setToken] = useState(initialToken() ?? "");
  useEffect(() => {
    fetch("/openapi.json")
      .then((r) => r.json())
      .then((d: Obj) => setDoc(d))
      .catch(() => undefined);
  }, []);
  if (doc === null) return html`<p>Loading /openapi.json…</p>`;
  const info = doc.info as { title: string; version: string; description: string };
  const paths = doc.paths as Record<string, Record<string, Operation>>;
  return html`<div class="app docs">
    <header class="top"><a class="brand" href="/">fluxgate</a><nav aria-label="Main"><a href="/">Dashboard</a> › API</nav><span class="spacer"></span><a href="/openapi.json">openapi.json</a></header>
    <main>
      <h1>${info.title} <span class="muted">${info.version}</span></h1>
      <p>${info.description}</p>
      <label class="field"><span class="field-label">Bearer token for "Send"</span>
        <input type="password" value=${token} onInput=${(e: Event) => {
          const v = (e.target as HTMLInputElement).value;
          setToken(v);
          storeToken(v === "" ? null : v);
        }} /></label>
      ${Object.entries(paths).flatMap(([path, methods]) =>
        Object.entries(methods).map(
          ([method, op]) => html`<details class="operation" id=${op.operationId}>
            <summary><span class=${`method ${method}`}>${method.toUpperCase()}</span> <code>${path}</code> — ${op.summary}</summary>
            ${
              op.requestBody !== undefined
                ? html`<details><summary>Request body schema (${Object.keys(op.requestBody.content).join(" or ")})</summary><pre>${JSON.stringify(resolve(doc, Object.values(op.requestBody.content)[0]?.schema), null, 2)}</pre></details>`
                : null
            }
            <p>Responses: ${Object.entries(op.responses).map(([code, r]) => html`<span class="response"><code>${code}</code> ${r.description}</span> `)}</p>
            <${Try} doc=${doc} path=${path} method=${method} op=${op} token=${token} />
          </details>`,
        ),
      )}
    </main>
  </div>`;
}

render(html`<${Docs} />`, document.getElementById("app") as HTMLElement);
