// A node bot that goes over one of its seat's bounds when greeted, before it says ready:
// "memory" keeps more and more objects on its heap, "processes" starts child processes
// (node itself) for a pool far larger than the seat allows. node's own words ("JavaScript
// heap out of memory", "spawn ... EAGAIN") end its stderr.
const { spawn } = require("child_process");
const readline = require("readline");
const lines = readline.createInterface({ input: process.stdin });
lines.once("line", () => {
  if (process.argv[2] === "memory") {
    const kept = [];
    for (;;) kept.push(new Array(1 << 16).fill(kept.length));
  }
  for (let i = 0; i < 256; i++) {
    const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"]);
    child.on("error", (error) => { throw error; });
  }
  setTimeout(() => console.log('{"type":"ready","name":"hog"}'), 2000);
});
