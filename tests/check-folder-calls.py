#!/usr/bin/env python3
# Calls between the files of one folder run one way (src/README.md, "The
# order within a folder"). A file calls another when its object uses a
# symbol the other's object defines: `nm` on the objects of the build
# says so exactly, with no guessing at C. Two files of one folder that
# reach each other through such calls, directly or round a longer loop,
# fail, with the symbols that close the loop, so the fix is plain: move a
# function to the file whose responsibility it is, or split a file by
# what it is for, until the calls of the folder run one way.
#
# A subfolder is a folder of its own, and the parts of a layer (a folder
# and its subfolders, such as src/runtime/ and src/runtime/turn/) call
# each other one way as well: their order is stated, and checked on the
# includes, by tests/check-layering.sh; here a loop of calls between them
# fails with the symbols that close it.
#
# The folders of tests/ keep the same rule: a test's helpers are split by
# responsibility as the program is. There a folder builds several
# executables, and a file may be built into more than one (the oracle's
# files into test-oracle and test-oracle-ui): a symbol that two files of a
# folder define (each test's own helpers) is the one of the file built
# into the same executable as its caller. The folders of tests/ are parts
# of tests/ as well: no order of them is stated, but a loop of calls
# between them fails all the same.
#
# Usage: check-folder-calls.py SOURCE_ROOT BUILD_ROOT

import json
import os
import subprocess
import sys
from collections import defaultdict

source_root = os.path.realpath(sys.argv[1])
build_root = os.path.realpath(sys.argv[2])

# Loops not yet broken, each with why it may stay for now. A loop passes
# only when every file of it is listed here under one folder.
ALLOWED = {}

# Loops between the parts of a folder (its own files, '.', and each of its
# subfolders) not yet broken, each with why.
ALLOWED_PARTS = {}

commands = os.path.join(build_root, 'compile_commands.json')
if not os.path.exists(commands):
    print('skip: no compile_commands.json in', build_root)
    sys.exit(77)

# The trees checked, relative to the source root.
TREES = ('src', 'tests')

# Source file (relative to the source root, under one of TREES) -> one of
# its object files (all are built from the same text), and the targets it
# is built into (the folder of each object, such as test-oracle.p).
objects = {}
targets = defaultdict(set)
for entry in json.load(open(commands)):
    path = os.path.realpath(os.path.join(entry['directory'], entry['file']))
    rel = os.path.relpath(path, source_root)
    if rel.split('/')[0] not in TREES or not rel.endswith('.c'):
        continue
    obj = os.path.join(entry['directory'], entry['output'])
    if not os.path.exists(obj):
        print('skip: not built yet:', obj)
        sys.exit(77)
    objects[rel] = min(objects.get(rel, obj), obj)
    targets[rel].add(os.path.dirname(obj))


def symbols(objs):
    """Per object: the external symbols it defines and the ones it uses.
    One `nm` for all of them: a process per object is slow on a busy
    machine."""
    out = subprocess.run(['nm', '-P', '-A'] + objs, check=True,
                         capture_output=True, text=True).stdout
    result = {obj: (set(), set()) for obj in objs}
    for line in out.splitlines():
        # "OBJECT: NAME KIND VALUE SIZE"
        obj, _, rest = line.partition(': ')
        fields = rest.split()
        if obj not in result or len(fields) < 2:
            continue
        defined, used = result[obj]
        name, kind = fields[0], fields[1]
        if kind == 'U':
            used.add(name)
        elif kind.isupper() and kind != 'N':
            defined.add(name)
    return result


def own_type(caller, callee, name):
    """Whether @caller uses @name, the GType of the class @callee defines,
    as a facet of that class: a class split by facet (natter-window.c and
    each natter-window-*.c) checks and casts to its own type
    (NATTER_WINDOW() calls natter_window_get_type()), which is being one
    class, not a call into another file's responsibility. The file that
    registers the type is the top of its facets (its class_init installs
    theirs); any other call from a facet to it still closes a loop."""
    stem = os.path.basename(callee)[:-len('.c')]
    return (name == stem.replace('-', '_') + '_get_type' and
            os.path.basename(caller).startswith(stem + '-'))


def owners_of(files):
    """Symbol -> the files of @files (rel -> (defined, used)) that define
    it."""
    owners = defaultdict(list)
    for rel, (defined, _) in files.items():
        for name in defined:
            owners[name].append(rel)
    return owners


def callee_of(owners, caller, name):
    """The file whose @name @caller uses: the one file that defines it,
    or of several (each test's own helper of one name), the one built into
    an executable with @caller; None when @caller gets it elsewhere."""
    found = owners.get(name, [])
    if len(found) > 1:
        found = [f for f in found if targets[f] & targets[caller]]
    return found[0] if len(found) == 1 else None


by_folder = defaultdict(dict)
found = symbols(sorted(objects.values()))
for rel, obj in objects.items():
    by_folder[os.path.dirname(rel)][rel] = found[obj]


def strongly_connected(nodes, edges):
    """Tarjan's algorithm: the sets of files that reach each other."""
    index, low, stack, on_stack, result = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            result.append(sorted(component))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return result


status = 0
allowed_seen = set()
for folder in sorted(by_folder):
    files = by_folder[folder]
    owners = owners_of(files)
    edges = defaultdict(dict)
    for rel, (_, used) in files.items():
        for name in sorted(used):
            callee = callee_of(owners, rel, name)
            if callee and callee != rel and not own_type(rel, callee, name):
                edges[rel].setdefault(callee, []).append(name)
    for component in strongly_connected(files, edges):
        if len(component) < 2:
            continue
        names = [os.path.basename(f) for f in component]
        allowed = ALLOWED.get(folder)
        if allowed and set(names) <= set(allowed['files']):
            allowed_seen.add(folder)
            print(f'allowed in {folder}/ ({allowed["why"]}): {" ".join(names)}')
            continue
        status = 1
        print(f'{folder}/: these files call each other in a loop:')
        members = set(component)
        for caller in component:
            for callee, used in sorted(edges[caller].items()):
                if callee in members:
                    shown = ', '.join(used[:4]) + (', …' if len(used) > 4 else '')
                    print(f'  {os.path.basename(caller)} -> '
                          f'{os.path.basename(callee)}: {shown}')

# The parts of each folder that has subfolders: the folder's own files,
# and each subfolder with everything under it.
parents = set()
for folder in by_folder:
    while folder in TREES or folder.split('/')[0] in TREES:
        parents.add(folder)
        folder = os.path.dirname(folder)
parts = defaultdict(dict)
for folder, files in by_folder.items():
    for parent in parents:
        if folder != parent and not folder.startswith(parent + '/'):
            continue
        rest = os.path.relpath(folder, parent)
        part = '.' if rest == '.' else rest.split('/')[0]
        for rel, syms in files.items():
            parts[parent].setdefault(part, {})[rel] = syms
for parent in sorted(parts):
    if len(parts[parent]) < 2:
        continue
    part_of = {}
    every = {}
    for part, files in parts[parent].items():
        for rel, syms in files.items():
            part_of[rel] = part
            every[rel] = syms
    owners = owners_of(every)
    edges = defaultdict(dict)
    for part, files in parts[parent].items():
        for rel, (_, used) in files.items():
            for name in sorted(used):
                callee = callee_of(owners, rel, name)
                callee = callee and part_of[callee]
                if callee and callee != part:
                    edges[part].setdefault(callee, []).append(name)
    for component in strongly_connected(parts[parent], edges):
        if len(component) < 2:
            continue
        allowed = ALLOWED_PARTS.get(parent)
        if allowed and set(component) <= set(allowed['parts']):
            allowed_seen.add(parent + ' parts')
            print(f'allowed between the parts of {parent}/ ({allowed["why"]}): '
                  f'{" ".join(component)}')
            continue
        status = 1
        print(f'{parent}/: these parts call each other in a loop:')
        members = set(component)
        for caller in component:
            for callee, used in sorted(edges[caller].items()):
                if callee in members:
                    shown = ', '.join(used[:4]) + (', …' if len(used) > 4 else '')
                    print(f'  {caller}/ -> {callee}/: {shown}')

for folder in sorted(set(ALLOWED_PARTS) - {f[:-len(' parts')] for f in allowed_seen
                                           if f.endswith(' parts')}):
    print(f'the parts of {folder}/ are allowed a loop they no longer have: '
          'remove it from ALLOWED_PARTS')
    status = 1

for folder in sorted((set(ALLOWED) & set(by_folder)) - allowed_seen):
    print(f'{folder}/ is allowed a loop it no longer has: '
          'remove it from ALLOWED')
    status = 1

if status == 0 and allowed_seen:
    print('ok: in every folder of src/ and tests/ the calls between files '
          'run one way, but for the loops allowed above')
elif status == 0:
    print('ok: in every folder of src/ and tests/ the calls between files '
          'run one way')
sys.exit(status)
