#!/usr/bin/env node
// The smallest complete Texas 42 bot, in JavaScript: it answers every decision with a random
// legal action. Node.js standard library only; the same bot as random_bot.py.
//
// Protocol (see protocol/PROTOCOL.md): one JSON object per line on stdin; answer `hello` with
// `ready` and every `act` with an `action` carrying the same `id` and one element of
// `legal_actions`, verbatim. Ignore any other message or field. It says "matches": "many":
// after `match_end` a tournament may send another `hello` (a new match, perhaps another
// seat), so it reads on until the end of its input.
//
// Run it: referee match "node example_bots/random_bot.js" "python3 example_bots/random_bot.py"

"use strict";

const readline = require("readline");

// mulberry32: a small 32-bit PRNG, plenty for picking among a handful of legal actions.
function mulberry32(seed) {
  let a = seed >>> 0;
  return function next() {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// The hello seed is 0 to 2**64-1, which a JavaScript number cannot hold exactly above 2**53:
// hello.seed_text carries it as a decimal string (older referees: the raw line's digits).
function seedFrom(line, message) {
  const match = /"seed"\s*:\s*(\d+)/.exec(line);
  const text = message.seed_text || (match ? match[1] : "0");
  return Number(BigInt(text) & 0xffffffffn);
}

function send(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

let random = mulberry32(0);
const input = readline.createInterface({ input: process.stdin, terminal: false });

input.on("line", (line) => {
  let message;
  try {
    message = JSON.parse(line);
  } catch (error) {
    return; // not JSON: nothing to answer
  }
  if (message === null || typeof message !== "object") {
    return;
  }
  if (message.type === "hello") {
    // Each match starts here: all the bot keeps is its PRNG, seeded anew from this hello.
    random = mulberry32(seedFrom(line, message)); // the referee's seed makes the bot reproducible
    send({ type: "ready", name: "random-js", matches: "many" });
  } else if (message.type === "act") {
    const legal = message.legal_actions;
    if (!Array.isArray(legal) || legal.length === 0) {
      return; // not a well-formed decision: nothing sensible to answer
    }
    const action = legal[Math.floor(random() * legal.length)];
    send({ type: "action", id: message.id, action: action });
  }
  // hand_end, match_end, rejected, and message types added later need no answer.
});

input.on("close", () => process.exit(0)); // the end of input
