// Assembles vector-kernel.wat into a binary module with `wabt`: assembleKernel() in process (dev and tests),
// buildKernel(out) synchronously for esbuild.js (in a child process, as `node build-kernel.js OUT`).

const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const WAT_FILE = path.join(__dirname, 'vector-kernel.wat');

async function assembleKernel() {
  const wabt = await require('wabt')();
  const source = fs.readFileSync(WAT_FILE, 'utf8');
  // `threads`: the kernel imports a shared memory (see kernel.ts kernelMemory).
  const features = { simd: true, threads: true };
  const mod = wabt.parseWat('vector-kernel.wat', source, features);
  try {
    mod.validate(features);
    const { buffer } = mod.toBinary({});
    return new Uint8Array(buffer);
  } finally {
    mod.destroy();
  }
}

function buildKernel(outFile) {
  const res = spawnSync(process.execPath, [__filename, outFile], { encoding: 'utf8' });
  if (res.status !== 0) {
    throw new Error(`assembling ${WAT_FILE} failed: ${(res.stderr || res.error || '').toString().trim()}`);
  }
}

module.exports = { assembleKernel, buildKernel };

if (require.main === module) {
  const out = process.argv[2];
  if (!out) {
    console.error('usage: node build-kernel.js <out.wasm>');
    process.exit(2);
  }
  assembleKernel().then(
    (bytes) => {
      fs.mkdirSync(path.dirname(path.resolve(out)), { recursive: true });
      const tmp = `${out}.${process.pid}.tmp`;
      fs.writeFileSync(tmp, bytes);
      fs.renameSync(tmp, out);
    },
    (err) => {
      console.error(err?.message ? err.message : String(err));
      process.exit(1);
    },
  );
}
