// Preloaded (--require) into a CLI under test: at exit, writes the Node built-in modules the process loaded to stderr.
process.on('exit', () => {
  process.stderr.write(`\nLOADED-BUILTINS ${JSON.stringify(process.moduleLoadList ?? null)}\n`);
});
