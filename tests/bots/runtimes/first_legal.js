// Plays the first legal action: a node bot, to check the sandbox lets node run. With --sizes
// it first says on stderr, as one JSON line, the heap, memory and processors node sized itself for.
if (process.argv.includes("--sizes")) {
  const heap = require("v8").getHeapStatistics().heap_size_limit;
  const os = require("os");
  process.stderr.write(JSON.stringify({ heap, memory: os.totalmem(), cpus: os.availableParallelism() }) + "\n");
}
const readline = require("readline");

const rl = readline.createInterface({ input: process.stdin });
rl.on("line", (line) => {
  if (line.includes('"type":"hello"')) {
    process.stdout.write('{"type":"ready","name":"node"}\n');
  } else if (line.includes('"type":"act"')) {
    const id = parseInt(line.slice(line.indexOf('"id":') + 5), 10);
    const legal = line.slice(line.indexOf('"legal_actions":[') + 17);
    let depth = 0, end = legal.length;
    for (let i = 0; i < legal.length; i++) {
      if (legal[i] === "{") depth++;
      if (legal[i] === "}" && --depth === 0) { end = i + 1; break; }
    }
    process.stdout.write(`{"type":"action","id":${id},"action":${legal.slice(0, end)}}\n`);
  } else if (line.includes("match_end")) {
    rl.close();
  }
});
