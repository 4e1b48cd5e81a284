export { serveHttp, type HttpServeOptions, type HttpServerHandle, type TransportLog } from './http';
export { serveStdio, type StdioServeOptions, type StdioHandle } from './stdio';
export {
  checkRequest,
  secretsEqual,
  REFUSAL_STATUS,
  type RefusalReason,
  type SecretScheme,
} from './guard';
export { isLoopbackHost, ListenError, type ListenTarget, type BoundEndpoint } from './listen';
export { DEFAULT_MAX_BODY_BYTES } from './body';
export { runBridge, endpointFetch, type BridgeOptions } from './bridge';
export {
  writeBridgeEndpoint,
  readBridgeEndpoint,
  processAlive,
  bridgeEndpointFile,
  sweepStaleBridgeEndpoints,
  ENDPOINT_FILE_VERSION,
  type BridgeEndpoint,
} from './bridge-endpoint';
