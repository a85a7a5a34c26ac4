// Reads files Natter wrote with JavaScript's own JSON.parse, the way
// read_lines.py does with Python's json module: the bytes must be UTF-8
// (a fatal decoder: an encoded surrogate is refused), a `.jsonl` file is
// lines each ended by "\n", each line (or a whole other file) one JSON
// text, and no string may hold a lone surrogate.
//
//   node read_lines.js FILE...
//
// Prints every value read, one a line, re-encoded by JSON.stringify.
// Exits 1 naming the file and line on the first refusal.
"use strict";

const fs = require("fs");

const decoder = new TextDecoder("utf-8", { fatal: true });
const loneSurrogate = /[\ud800-\udfff]/u;

function checkText(value) {
  if (typeof value === "string") {
    if (loneSurrogate.test(value))
      throw new Error("a string holds a lone surrogate");
  } else if (Array.isArray(value)) {
    value.forEach(checkText);
  } else if (value !== null && typeof value === "object") {
    for (const [name, item] of Object.entries(value)) {
      checkText(name);
      checkText(item);
    }
  }
}

const out = [];
for (const path of process.argv.slice(2)) {
  let number = 0;
  try {
    const text = decoder.decode(fs.readFileSync(path));
    let lines = [text];
    if (path.endsWith(".jsonl")) {
      if (!text.endsWith("\n"))
        throw new Error("the last line has no newline");
      lines = text.slice(0, -1).split("\n");
    }
    for (const line of lines) {
      number++;
      const value = JSON.parse(line);
      checkText(value);
      out.push(JSON.stringify(value));
    }
  } catch (e) {
    process.stderr.write(`${path}:${number}: ${e.message}\n`);
    process.exit(1);
  }
}
process.stdout.write(out.map((line) => line + "\n").join(""));
