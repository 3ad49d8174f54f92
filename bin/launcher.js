// The server stops with the npm that started it (docs/configuration.md#state-and-logs).
//
// npm runs a script (`npm start`, `npm run <name>`) and `npx` runs a bin through a shell:
// npm → sh -c "<script>" → node. npm passes SIGINT and SIGTERM on to that shell only, and a shell
// that did not `exec` its command (dash, the /bin/sh of Debian and Ubuntu, never does) dies of the
// signal without passing it on: `kill $!` after `npm start &` ended npm and the shell and left the
// server running, orphaned, on its port. So when that shell runs nothing but this process (its
// script is one simple command), its death before ours can only be a signal or a kill, and it is
// taken as one: SIGTERM to ourselves, which `paysandbox start` answers with its clean shutdown.
// A script with `&`, `;`, `|` or a subshell may end while we run on purpose, and a process started
// by hand (`node dist/main.js &`, nohup) outlives its shell on purpose: neither is watched.
// Plain JavaScript, like bin/node-lines.js.

/** How often the parent is looked at: a shutdown starts at most this long after the shell died. */
const EVERY_MS = 100;

/** Whether `script` (npm_lifecycle_script) runs one command and nothing after it. */
export function isSimpleCommand(script) {
  return typeof script === "string" && script.trim() !== "" && !/[;&|\n\r`()<>]|\$\(/.test(script);
}

/** Under npm's shell of one command, SIGTERM to this process when that shell dies. */
export function stopWithLauncher(env = process.env) {
  if (!env.npm_lifecycle_event || !isSimpleCommand(env.npm_lifecycle_script)) return;
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    process.kill(process.pid, "SIGTERM");
  }, EVERY_MS);
  timer.unref();
}
