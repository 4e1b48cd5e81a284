export { serveHttp, type HttpServeOptions, type HttpServerHandle, type TransportLog } from './http';
export { modernLeg, type ModernLeg } from './http-modern';
export type { ListenWatch, ListenWatchFactory } from './listen-streams';
export { serveStdio, type StdioServeOptions, type StdioHandle } from './stdio';
export { checkRequest, secretsEqual } from './guard';
export { isLoopbackHost, ListenError } from './listen';
export { runBridge, type BridgeOptions } from './bridge';
export {
  writeBridgeEndpoint,
  bridgeEndpointFile,
  sweepStaleBridgeEndpoints,
  type BridgeEndpoint,
} from './bridge-endpoint';
