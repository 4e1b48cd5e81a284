// Injected into CommonJS bundles: packages that are ESM-only (sqlite-wasm) read import.meta.url at load time.
export const import_meta_url = require('node:url').pathToFileURL(__filename).href;
