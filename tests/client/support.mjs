// Starting the real engram binary for client tests: `engram serve` on a free
// loopback port (it prints "listening on http://HOST:PORT") and `engram mcp`
// on stdio. ENGRAM_BIN names the binary (CTest sets it).
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

export const engramBin = process.env.ENGRAM_BIN ?? path.resolve("../../build/debug/app/engram");

export function tempDir(prefix = "engram-client-") {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

// Starts `engram serve --db DB --listen 127.0.0.1:0 ...extra`; resolves to
// { url, stop(), log() } once the server says where it listens.
export function startServer({ db = tempDir(), args = [] } = {}) {
  const child = spawn(engramBin, ["serve", "--db", db, "--listen", "127.0.0.1:0", ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  const onData = (chunk) => { log += chunk.toString(); };
  child.stdout.on("data", onData);
  child.stderr.on("data", onData);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("engram serve did not start:\n" + log)), 30000);
    child.on("exit", (code) => reject(new Error(`engram serve exited with ${code}:\n${log}`)));
    const poll = setInterval(() => {
      const m = log.match(/listening on (http:\/\/[0-9.]+:[0-9]+)/);
      if (!m) return;
      clearInterval(poll);
      clearTimeout(timer);
      resolve({
        url: m[1],
        db,
        log: () => log,
        stop: () => new Promise((done) => {
          child.removeAllListeners("exit");
          child.on("exit", (code, signal) => done({ code, signal }));
          child.kill("SIGTERM");
        }),
      });
    }, 20);
  });
}

export function removeDir(dir) {
  rmSync(dir, { recursive: true, force: true });
}
