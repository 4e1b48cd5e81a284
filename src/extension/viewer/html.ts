import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';

/** The viewer's shell: nonce-based CSP, only our bundled script and stylesheet, no message data inline. */
export function viewerHtml(webview: vscode.Webview, extensionUri: vscode.Uri): string {
  const nonce = randomBytes(16).toString('base64');
  const script = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', 'viewer.js'));
  const style = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'media', 'viewer', 'viewer.css'));
  const src = webview.cspSource;
  const csp = `default-src 'none'; style-src ${src}; img-src ${src}; font-src ${src}; script-src 'nonce-${nonce}'`;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${style}">
<title>msgbrowse</title>
</head>
<body>
<div class="toolbar">
  <div class="titles"><div id="title">Loading…</div><div id="subtitle"></div></div>
  <input id="find" type="search" placeholder="Find in conversation" aria-label="Find in conversation">
  <span id="find-count" aria-live="polite"></span>
  <button id="find-prev" title="Previous match (Shift+Enter)">↑</button>
  <button id="find-next" title="Next match (Enter)">↓</button>
</div>
<div id="banner" role="alert" hidden></div>
<section id="digest" aria-label="Journal digest of the day" hidden></section>
<div id="scroller">
  <div id="top" class="sentinel"></div>
  <div id="messages" role="log" aria-label="Messages"></div>
  <div id="bottom" class="sentinel"></div>
</div>
<script nonce="${nonce}" src="${script}"></script>
</body>
</html>`;
}
