// Startup experiments: seed 000 (".NET 6": Startup — a "Hello, World" app timed from outside) and
// seed 003 (".NET Core 3.0": Process — ProcessStartWait on a no-op program). Ported as scenarios: one
// invocation starts a process and waits for it (child_process.spawnSync). process.execPath is the
// runtime under test, so HelloWorld compares the Node versions' own start-up; ProcessStartWait starts
// the seed's no-op native program, so it compares their process-start path.
import { spawnSync } from 'node:child_process';
import { bench } from 'perflab';

function run(file, args, stdout = 'ignore') {
  const r = spawnSync(file, args, { stdio: ['ignore', stdout, 'inherit'] });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`${file} ${args.join(' ')} exited with ${r.status ?? r.signal}`);
  return r.status;
}

// Start `node -e "console.log('Hello, World!')"` and wait for it (its output goes to a pipe, as
// Measure-Command's did to the console).
bench('HelloWorld', () => run(process.execPath, ['-e', "console.log('Hello, World!')"], 'pipe'), {
  categories: ['startup', 'quick'], meta: { seed: '000', section: 'Startup', scenario: true, fidelity: 'faithful' },
});

// Process.Start(nop).WaitForExit(): the seed's target is a no-op native program (`int main() {
// return 0; }`), here /bin/true; the same for every runtime, so it measures the runtime's
// process-start path (spawnSync: fork/exec via libuv) alone.
bench('ProcessStartWait', () => run('/bin/true', []), {
  categories: ['startup'], meta: { seed: '003', section: 'Process', fidelity: 'faithful' },
});

// Not the seed's experiment: start the runtime itself with an empty program (`node -e ""`).
bench('ProcessStartWaitInterpreter', () => run(process.execPath, ['-e', '']), {
  categories: ['startup'], meta: { extra: true, related: '003 · Process' },
});
