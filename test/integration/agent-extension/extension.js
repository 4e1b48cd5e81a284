// @ts-check
/**
 * Test extension for the agent-mode integration suite (test/integration/suite/agent.ts); staged beside msgbrowse by
 * runTest.ts, never in the VSIX. It registers one language model (vendor `msgbrowse-test`) whose turns the suite
 * scripts through this extension's exports, and records every request VS Code's agent sends it: the messages
 * (system prompt, user prompt, tool calls, tool results as the model receives them), the tools offered and the
 * options — so tests assert on exactly what a model sees. Plain JS: @types/vscode here predates these APIs.
 */
const vscode = require('vscode');

const VENDOR = 'msgbrowse-test';

/** @param {unknown} part */
function serializePart(part) {
  const p = /** @type {any} */ (part);
  if (part instanceof vscode.LanguageModelTextPart) return { type: 'text', value: p.value };
  if (part instanceof vscode.LanguageModelToolCallPart)
    return { type: 'toolCall', callId: p.callId, name: p.name, input: p.input };
  if (part instanceof vscode.LanguageModelToolResultPart)
    return { type: 'toolResult', callId: p.callId, content: (p.content ?? []).map(serializePart) };
  if (p && p.data instanceof Uint8Array) {
    const mimeType = String(p.mimeType ?? '');
    const text = /^(text\/|application\/json)/.test(mimeType) ? new TextDecoder().decode(p.data) : undefined;
    return { type: 'data', mimeType, ...(text !== undefined ? { value: text } : { bytes: p.data.length }) };
  }
  if (p && typeof p.value === 'string') return { type: 'text', value: p.value };
  if (p && p.value !== undefined) return { type: 'json', value: JSON.stringify(p.value) };
  return { type: 'unknown', value: JSON.stringify(p) };
}

/** @param {any} m */
function serializeMessage(m) {
  const role =
    m.role === vscode.LanguageModelChatMessageRole.User
      ? 'user'
      : m.role === vscode.LanguageModelChatMessageRole.Assistant
        ? 'assistant'
        : `role-${m.role}`;
  const content = Array.isArray(m.content)
    ? m.content.map(serializePart)
    : [{ type: 'text', value: String(m.content) }];
  return { role, name: m.name, content };
}

/** @param {vscode.ExtensionContext} context */
function activate(context) {
  /** @type {any[]} */
  const requests = [];
  /** @type {((req: any) => any[]) | undefined} */
  let script;
  let calls = 0;
  const changed = new vscode.EventEmitter();
  const provider = {
    onDidChangeLanguageModelChatInformation: changed.event,
    provideLanguageModelChatInformation() {
      return [
        {
          id: 'scripted-agent',
          name: 'Scripted Agent',
          family: 'scripted',
          version: '1',
          tooltip: 'msgbrowse integration tests',
          maxInputTokens: 200_000,
          maxOutputTokens: 16_000,
          isUserSelectable: true,
          capabilities: { toolCalling: true, imageInput: false },
        },
      ];
    },
    /** @param {any} _model @param {readonly any[]} messages @param {any} options @param {any} progress */
    async provideLanguageModelChatResponse(_model, messages, options, progress) {
      const req = {
        at: Date.now(),
        messages: messages.map(serializeMessage),
        tools: (options.tools ?? []).map((/** @type {any} */ t) => ({
          name: t.name,
          description: t.description,
          inputSchema: t.inputSchema,
        })),
        toolMode: options.toolMode,
        modelOptions: options.modelOptions,
      };
      requests.push(req);
      const parts = script ? script(req) : [{ text: 'No script is set.' }];
      for (const part of parts) {
        if (part.tool)
          progress.report(new vscode.LanguageModelToolCallPart(`call_${++calls}`, part.tool, part.input ?? {}));
        else progress.report(new vscode.LanguageModelTextPart(String(part.text ?? '')));
      }
    },
    /** @param {any} _model @param {any} text */
    async provideTokenCount(_model, text) {
      const s = typeof text === 'string' ? text : JSON.stringify(serializeMessage(text));
      return Math.ceil(s.length / 4);
    },
  };
  context.subscriptions.push(
    /** @type {any} */ (vscode.lm).registerLanguageModelChatProvider(VENDOR, provider),
    changed,
  );
  setTimeout(() => changed.fire(undefined), 0);
  return {
    vendor: VENDOR,
    /** Every request received so far, oldest first. */
    requests: () => requests,
    /** The next turns: called per request with what it received; returns parts `{tool, input}` or `{text}`. */
    setScript: (/** @type {any} */ fn) => {
      script = fn;
    },
    reset: () => {
      requests.length = 0;
      script = undefined;
    },
  };
}

module.exports = { activate, deactivate() {} };
