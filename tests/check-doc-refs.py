#!/usr/bin/env python3
# A section sign (§) in the code names a document of the repository and a
# section it has: "docs/runtime.md §6", "docs/format.md §3.3, §3.4",
# "docs/sessions.md §9.1 step 2". A reference that names no document (a
# bare "§3": which document?), names one outside docs/, or names a section
# the document does not have fails. Standards keep their own numbering
# ("RFC 8259 §7"). In docs/ a bare § is a section of the same document.
#
# Usage: check-doc-refs.py SOURCE_ROOT

import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else '.'
os.chdir(root)

CODE_DIRS = ['src', 'tests', 'bench', 'fuzz']
# What may stand between two references of one list, or between a
# document and its section: spaces, a line break with a comment leader.
GAP = r'(?:\s|\n\s*(?:\*|#|//)?)*'
SECTION = re.compile(r'§\s*(\d+(?:\.\d+)*)')
STEPS = re.compile(r'\s+steps?\s+\d+(?:\s*[–-]\s*\d+)?')
LIST_SEP = re.compile(r'^' + GAP + r'(?:,|and|or|/|–|-|, and)?' + GAP + r'$')
IN_CODE = re.compile(r'(docs/[a-z-]+\.md|RFC \d+)' + GAP + r'$')
IN_DOCS = re.compile(r'(?:\[)?([a-z-]+\.md)(?:\]\([^)]*\))?' + GAP + r'$|(RFC \d+)' + GAP + r'$')
HEADING = re.compile(r'^#{2,4}\s+(\d+(?:\.\d+)*)\.?\s')

sections = {}


def sections_of(doc):
    if doc not in sections:
        found = set()
        try:
            with open(doc, encoding='utf-8') as f:
                for line in f:
                    m = HEADING.match(line)
                    if m:
                        found.add(m.group(1))
        except FileNotFoundError:
            found = None
        sections[doc] = found
    return sections[doc]


def check(path, text, in_docs):
    problems = []
    previous = None  # (end of the previous reference, its document)
    for m in SECTION.finditer(text):
        line = text.count('\n', 0, m.start()) + 1
        sec = m.group(1)
        before = text[max(0, m.start() - 120):m.start()]
        named = (IN_DOCS if in_docs else IN_CODE).search(before)
        doc = None
        if named:
            doc = named.group(1) or (named.group(2) if in_docs else None)
            if in_docs and doc and doc.endswith('.md'):
                doc = 'docs/' + doc
        elif previous and previous[1] and LIST_SEP.match(text[previous[0]:m.start()]):
            doc = previous[1]
        elif in_docs:
            doc = path
        end = m.end()
        steps = STEPS.match(text, end)
        if steps:
            end = steps.end()
        previous = (end, doc)
        where = f'{path}:{line}: §{sec}'
        if doc is None:
            problems.append(f'{where} names no document (write "docs/….md §{sec}")')
        elif doc.startswith('RFC '):
            continue
        elif not doc.startswith('docs/'):
            problems.append(f'{where} names {doc}, which is not a document of docs/')
        else:
            have = sections_of(doc)
            if have is None:
                problems.append(f'{where} names {doc}, which does not exist')
            elif sec not in have:
                problems.append(f'{where}: {doc} has no section {sec}')
    return problems


def main():
    problems = []
    outside = re.compile(r'turn-runtime\.md|session-layer-spec')
    files = []
    for top in CODE_DIRS:
        for dirpath, dirs, names in os.walk(top):
            # Benchmarks write their data sets under bench/out (ignored by
            # git, hundreds of thousands of files): only source is read.
            dirs[:] = [d for d in dirs if d != 'out' and not d.startswith('.')]
            files += [os.path.join(dirpath, n) for n in names
                      if n.endswith(('.c', '.h', '.py', '.sh', '.ui', '.build', '.md'))
                      or n in ('run', 'compare')]
    files += [os.path.join('docs', n) for n in os.listdir('docs') if n.endswith('.md')]
    for path in sorted(files):
        if path == os.path.join('tests', 'check-doc-refs.py'):
            continue
        try:
            with open(path, encoding='utf-8') as f:
                text = f.read()
        except (UnicodeDecodeError, OSError):
            continue
        if outside.search(text):
            for i, line in enumerate(text.split('\n'), 1):
                if outside.search(line):
                    problems.append(f'{path}:{i}: names a design note outside the repository')
        if '§' in text:
            problems += check(path, text, path.startswith('docs/'))
    for p in problems:
        print(p)
    return 1 if problems else 0


sys.exit(main())
