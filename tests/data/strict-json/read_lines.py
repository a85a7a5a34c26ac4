#!/usr/bin/python3
# Reads files Natter wrote with Python's own json module, as strictly as
# it reads: the bytes must be UTF-8 (an encoded surrogate is refused), a
# `.jsonl` file is lines each ended by "\n", and each line (or a whole
# other file) must be one JSON text: json.loads refuses raw control
# characters in strings, and NaN and Infinity are refused here too. A
# string holding a lone surrogate (what a `\ud800` escape gives) is
# refused: it is not text.
#
#   read_lines.py FILE...
#
# Prints every value read, one a line, re-encoded by json.dumps with
# ensure_ascii, so the test can compare what this reader saw with what
# Natter reads. Exits 1 naming the file and line on the first refusal.
import json
import sys


def refuse_constant(name):
    raise ValueError("%s is not JSON" % name)


def check_text(value):
    if isinstance(value, str):
        for c in value:
            if 0xD800 <= ord(c) <= 0xDFFF:
                raise ValueError("a string holds the lone surrogate U+%04X" % ord(c))
    elif isinstance(value, list):
        for item in value:
            check_text(item)
    elif isinstance(value, dict):
        for name, item in value.items():
            check_text(name)
            check_text(item)


def lines_of(path, text):
    if not path.endswith(".jsonl"):
        return [text]
    if not text.endswith("\n"):
        raise ValueError("the last line has no newline")
    # Not splitlines(): U+2028 and friends are text inside a line.
    return text[:-1].split("\n")


def main():
    out = []
    for path in sys.argv[1:]:
        number = 0
        try:
            with open(path, "rb") as f:
                text = f.read().decode("utf-8")
            for number, line in enumerate(lines_of(path, text), 1):
                value = json.loads(line, parse_constant=refuse_constant)
                check_text(value)
                out.append(json.dumps(value, ensure_ascii=True, separators=(",", ":")))
        except ValueError as e:
            sys.stderr.write("%s:%d: %s\n" % (path, number, e))
            return 1
    sys.stdout.write("".join(line + "\n" for line in out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
