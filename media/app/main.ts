/**
 * The MCP App view `ui://msgbrowse/thread` (src/mcp/app-view.ts serves it; esbuild.js inlines this bundle and
 * thread.css into dist/thread-app.html). It speaks to the host only through ext-apps' `App` (ui/initialize, the
 * tool-result and host-context notifications, ui/open-link, ui/message, proxied tools/call) — no hand-rolled
 * postMessage, no network (the document's CSP allows none). It shows only what the tool result carries.
 */
import {
  App,
  applyDocumentTheme,
  applyHostStyleVariables,
  type McpUiHostContext,
} from '@modelcontextprotocol/ext-apps';
import { mergeContext, modelFromResult, type ThreadMessage, type ThreadModel } from './model';
import { installKeyboard, renderModel, setActive, type ViewActions } from './render';

const root = document.getElementById('scroller') as HTMLElement;
const statusLine = document.getElementById('status') as HTMLElement;
let model: ThreadModel | undefined;
/** The arguments of the call whose result is shown (for its next page). */
let toolArgs: Record<string, unknown> | undefined;

function status(text: string): void {
  statusLine.textContent = text;
  statusLine.hidden = !text;
}

const app = new App({ name: 'msgbrowse-thread', version: '1.0.0' }, {}, { autoResize: true });

/** The host's theme, its CSS variables and the height it gives us (the view scrolls inside it). */
function applyContext(ctx: McpUiHostContext | undefined): void {
  if (!ctx) return;
  if (ctx.theme) applyDocumentTheme(ctx.theme);
  if (ctx.styles?.variables) applyHostStyleVariables(ctx.styles.variables);
  const dims = ctx.containerDimensions as { height?: number; maxHeight?: number } | undefined;
  const h = dims?.height ?? dims?.maxHeight;
  if (typeof h === 'number' && h > 0)
    document.documentElement.style.setProperty('--app-max-height', `${Math.floor(h)}px`);
}

const findMessage = (hash: string | undefined): ThreadMessage | undefined =>
  model?.sections
    .flatMap((s) => s.groups)
    .flatMap((g) => g.messages)
    .find((m) => m.hash === hash);

function render(focusHash?: string): void {
  if (!model) return;
  const focus = renderModel(root, model, actions);
  const target =
    (focusHash && root.querySelector<HTMLElement>(`article.msg[data-hash="${CSS.escape(focusHash)}"]`)) || focus;
  if (target) {
    setActive(root, target, !!focusHash);
    if (!focusHash) target.scrollIntoView({ block: 'nearest' });
  }
}

const textOf = (r: { content?: { type: string; text?: string }[] }) =>
  (r.content ?? [])
    .map((c) => (c.type === 'text' ? (c.text ?? '') : ''))
    .join('\n')
    .trim();

const actions: ViewActions = {
  open(m) {
    app.openLink({ url: m.link }).then(
      (r) => status(r.isError ? 'The host did not open the message.' : ''),
      (e: unknown) => status(`Could not open the message: ${e instanceof Error ? e.message : String(e)}`),
    );
  },
  more(m, b) {
    b.disabled = true;
    b.textContent = 'Loading context…';
    app.callServerTool({ name: 'get_context', arguments: { message_id: m.message_id, hash: m.hash } }).then(
      (r) => {
        if (r.isError || !model) {
          b.disabled = false;
          b.textContent = 'Show more context';
          status(textOf(r) || 'get_context failed.');
          return;
        }
        const added = mergeContext(model, m.hash, r.structuredContent);
        render(m.hash);
        const again = root.querySelector<HTMLButtonElement>(
          `article.msg[data-hash="${CSS.escape(m.hash)}"] button.more`,
        );
        if (again) {
          again.disabled = true;
          again.textContent = added ? `${added} more shown` : 'No more context';
        }
        status('');
      },
      (e: unknown) => {
        b.disabled = false;
        b.textContent = 'Show more context';
        status(`Could not load the context: ${e instanceof Error ? e.message : String(e)}`);
      },
    );
  },
  next(call, b) {
    b.disabled = true;
    b.textContent = 'Loading…';
    app.callServerTool(call).then(
      (r) => {
        const page = r.isError ? undefined : modelFromResult(r.structuredContent, call.arguments);
        if (!page) {
          b.disabled = false;
          b.textContent = 'Next page';
          status(textOf(r) || 'The next page could not be read.');
          return;
        }
        toolArgs = call.arguments;
        model = page;
        status('');
        render();
        root.scrollTop = 0;
      },
      (e: unknown) => {
        b.disabled = false;
        b.textContent = 'Next page';
        status(`Could not load the next page: ${e instanceof Error ? e.message : String(e)}`);
      },
    );
  },
  ask(m) {
    const text = `What else should I know about [this message from ${m.sender} in ${m.conversation} (${m.timestamp})](${m.link})?`;
    app.sendMessage({ role: 'user', content: [{ type: 'text', text }] }).then(
      (r) => status(r.isError ? 'The host did not take the question.' : ''),
      (e: unknown) => status(`Could not ask: ${e instanceof Error ? e.message : String(e)}`),
    );
  },
};

installKeyboard(root, (row) => {
  const m = findMessage(row.dataset.hash);
  if (m) actions.open(m);
});

app.ontoolinput = (p) => {
  toolArgs = p.arguments;
  status('Reading the archive…');
};
app.ontoolcancelled = () => status('The tool call was cancelled.');
app.ontoolresult = (r) => {
  if (r.isError) {
    model = undefined;
    root.replaceChildren();
    status(textOf(r) || 'The tool failed.');
    return;
  }
  model = modelFromResult(r.structuredContent, toolArgs);
  if (!model || model.count === 0) {
    root.replaceChildren();
    status(model ? model.title : 'This result carries no messages.');
    model = undefined;
    return;
  }
  status('');
  render();
};
app.onhostcontextchanged = (ctx) => applyContext(ctx);
app.onteardown = async () => ({});

app.connect().then(
  () => applyContext(app.getHostContext()),
  (e: unknown) => status(`Could not connect to the host: ${e instanceof Error ? e.message : String(e)}`),
);
