// The test host page of test/app/thread-view.test.ts (bundled for the browser by the test): it acts as an MCP Apps
// host through ext-apps' own AppBridge — the view runs in a sandboxed srcdoc iframe, as hosts run it — and records
// every request the view makes. tools/call goes back to the real MCP server through `window.callServerTool`
// (exposed by the test). Plain JS: test/ is type-checked without the DOM library.
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';

const events = [];
window.hostEvents = events;

window.startHost = async (html, hostContext) => {
  const iframe = document.getElementById('view');
  const bridge = new AppBridge(
    null,
    { name: 'msgbrowse-test-host', version: '1.0.0' },
    { openLinks: {}, serverTools: {}, message: { text: {} }, logging: {} },
    { hostContext },
  );
  bridge.onopenlink = async (params) => {
    events.push({ method: 'ui/open-link', params });
    return {};
  };
  bridge.onmessage = async (params) => {
    events.push({ method: 'ui/message', params });
    return {};
  };
  bridge.oncalltool = async (params) => {
    events.push({ method: 'tools/call', params });
    return window.callServerTool(params);
  };
  bridge.onsizechange = (params) => events.push({ method: 'ui/notifications/size-changed', params });
  const initialized = new Promise((resolve) => {
    bridge.oninitialized = resolve;
  });
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  iframe.srcdoc = html;
  await initialized;
  window.hostBridge = bridge;
};

window.sendToolResult = (result) => window.hostBridge.sendToolResult(result);
window.sendToolInput = (args) => window.hostBridge.sendToolInput({ arguments: args });
window.setHostContext = (ctx) => window.hostBridge.setHostContext(ctx);
