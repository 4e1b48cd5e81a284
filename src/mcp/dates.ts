// Moved to the core; kept for src/extension/search-service.ts until it imports the barrel.
export { parseDay } from '../core';
