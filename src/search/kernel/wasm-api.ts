/** The slice of the WebAssembly JS API the vector index uses, typed locally (neither our lib nor @types/node has it). */
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(deltaPages: number): number;
}

export type WasmModule = object;

interface WasmApi {
  Memory: new (descriptor: { initial: number; maximum?: number; shared?: boolean }) => WasmMemory;
  compile(bytes: Uint8Array): Promise<WasmModule>;
  instantiate(
    module: WasmModule,
    imports: Record<string, Record<string, unknown>>,
  ): Promise<{ exports: Record<string, unknown> }>;
}

export const wasm: WasmApi = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
