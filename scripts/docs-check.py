#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The documentation's own checks (scripts/docs-check.sh runs this).

    docs-check.py TOP

1. Every Documentation/**/*.rst parses with docutils, warnings as errors.
   docutils knows no kernel-doc directive (that is Sphinx and the kernel's
   Documentation/sphinx/kerneldoc.py): here it only checks that the file
   it names exists; scripts/docs-check.sh runs kernel-doc on it.  Sphinx's
   :doc: role and toctree directive likewise: the documents they name must
   exist.
2. Every path of this tree and every make target that README.md or the
   .rst files name exists, and make help lists every target: in the .rst files, what docutils sees as
   literal text, literal blocks, links, images and includes; in README.md,
   code spans, fenced blocks and link targets.
3. Documentation/messages.rst catalogues every message the shipped modules
   (Kbuild's flushpol, flushpol_adaptive, flushpol_smmuv3, flushpol_smmuv2
   and flushpol_qcom: their sources under core/, policy/ and backends/)
   print to the kernel log, and nothing else.  Each pr_*(), dev_*(),
   pci_*() and WARN() format (adjacent literals joined, the file's pr_fmt
   before a pr_*() one, "<driver> <device>: " before a device's) is a
   pattern, each printf conversion a wildcard; an entry is a definition
   list item whose term is one literal, the message as the journal shows
   it (<...> for values), under a section whose title starts with its
   module's name, with :Level: (the journal's priority, and "once" or
   "rate-limited" where the call is), :When:, :Meaning: and :Action:.
   Every print call must match an entry of its module at its level, and
   every entry must be matched by a print call of its module; a format
   that is not a literal, or a print in a header, fails too.
"""
import glob
import io
import os
import re
import sys

import docutils.core
import docutils.nodes
from docutils.parsers.rst import Directive, directives, roles

TOP = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
# A word naming a file of this tree starts with one of these.
ROOTS = ("core/", "policy/", "include/", "backends/", "kunit/", "scripts/",
         "e2e/", "conftest/", "Documentation/", "bench/", "debian/", ".ci/")
FILES = ("Makefile", "Kbuild", "dkms.conf", "README.md")
errors = []


class KernelDoc(Directive):
    """Stands in for the kernel's kernel-doc directive: the file must exist."""
    required_arguments = 1
    optional_arguments = 0
    has_content = False
    option_spec = {"export": directives.unchanged,
                   "internal": directives.unchanged,
                   "identifiers": directives.unchanged,
                   "no-identifiers": directives.unchanged,
                   "functions": directives.unchanged,
                   "doc": directives.unchanged}

    def run(self):
        path = self.arguments[0]
        if not os.path.exists(os.path.join(TOP, path)):
            raise self.error(f"kernel-doc: no file {path}")
        return []


directives.register_directive("kernel-doc", KernelDoc)


class TocTree(Directive):
    """Stands in for Sphinx's toctree: every document it lists must exist."""
    has_content = True
    option_spec = {"maxdepth": directives.nonnegative_int,
                   "caption": directives.unchanged,
                   "numbered": directives.flag,
                   "hidden": directives.flag}

    def run(self):
        here = os.path.dirname(self.state.document["source"])
        for entry in self.content:
            entry = entry.strip()
            if entry and not os.path.exists(os.path.join(here, entry + ".rst")):
                raise self.error(f"toctree: no document {entry}.rst")
        return []


directives.register_directive("toctree", TocTree)


def doc_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    """Sphinx's :doc:, as the kernel's documents use it: the document must
    exist beside the one that names it."""
    target = re.sub(r"^.*<(.*)>$", r"\1", text)
    here = os.path.dirname(inliner.document["source"])
    if not os.path.exists(os.path.join(here, target + ".rst")):
        msg = inliner.reporter.error(f":doc: names {target}.rst, which does not exist",
                                     line=lineno)
        return [inliner.problematic(rawtext, rawtext, msg)], [msg]
    return [docutils.nodes.reference(rawtext, target, refuri=target + ".rst")], []


roles.register_local_role("doc", doc_role)


def targets():
    names = set()
    for line in open(os.path.join(TOP, "Makefile")):
        m = re.match(r"^([a-zA-Z0-9_.-]+(?:\s+[a-zA-Z0-9_.-]+)*)\s*:(?!=)", line)
        if m:
            names.update(m.group(1).split())
    return names


MAKE_TARGETS = targets()


def check_help():
    """make help has a line for every target of the Makefile."""
    helped = set()
    for line in open(os.path.join(TOP, "Makefile")):
        m = re.match(r"\s*@echo 'make (\S+)", line)
        if m:
            helped.update(m.group(1).strip("[]").split("|"))
    for t in sorted(MAKE_TARGETS - {".PHONY"}):
        if t not in helped:
            errors.append(f"Makefile: make help has no line for target '{t}'")


def check_words(doc, text):
    """Paths and make targets in a piece of literal text."""
    words = text.split()
    for i, w in enumerate(words):
        if w == "make" and i + 1 < len(words):
            t = words[i + 1].strip("`.,;:)'\"")
            if re.fullmatch(r"[a-z][a-z0-9-]*", t) and t not in MAKE_TARGETS:
                errors.append(f"{doc}: names make target '{t}', which the Makefile lacks")
        check_path(doc, w)


def check_path(doc, word):
    w = word.strip("`'\"(),;:[]*")
    w = re.sub(r"[.,;:]+$", "", w)
    w = w.split("=", 1)[1] if "=" in w and not w.startswith(ROOTS) else w
    if not (w.startswith(ROOTS) or w in FILES):
        return
    if any(c in w for c in "<>$%{}") or w.startswith("build/"):
        return
    w = w.split(":", 1)[0]
    if glob.glob(os.path.join(TOP, w)) or os.path.exists(os.path.join(TOP, w)):
        return
    errors.append(f"{doc}: names {w}, which does not exist")


def check_rst(path):
    rel = os.path.relpath(path, TOP)
    text = open(path, encoding="utf-8").read()
    settings = {"halt_level": 2, "report_level": 2, "exit_status_level": 2,
                "warning_stream": io.StringIO(), "file_insertion_enabled": True,
                "raw_enabled": False}
    cwd = os.getcwd()
    try:
        # include paths are relative to the file, as in Sphinx.
        os.chdir(os.path.dirname(path))
        tree = docutils.core.publish_doctree(text, source_path=path,
                                             settings_overrides=settings)
    except docutils.utils.SystemMessage as e:
        errors.append(f"{rel}: {e}")
        return None
    finally:
        os.chdir(cwd)
    here = os.path.dirname(rel)
    for node in tree.traverse():
        if isinstance(node, (docutils.nodes.literal, docutils.nodes.literal_block)):
            if node.get("source", path) == path:
                check_words(rel, node.astext())
        elif isinstance(node, docutils.nodes.reference) and node.get("refuri"):
            uri = node["refuri"]
            if "://" not in uri and not uri.startswith(("#", "mailto:")):
                check_path(rel, os.path.normpath(os.path.join(here, uri.split("#")[0])))
        elif isinstance(node, docutils.nodes.image):
            check_path(rel, os.path.normpath(os.path.join(here, node["uri"])))
    for m in re.finditer(r"^\s*\.\. (?:include|kernel-doc|literalinclude)::\s*(\S+)",
                         text, re.M):
        target = m.group(1)
        if "kernel-doc" in m.group(0):
            check_path(rel, target)
        else:
            check_path(rel, os.path.normpath(os.path.join(here, target)))
    return tree


def check_markdown(path):
    rel = os.path.relpath(path, TOP)
    text = open(path, encoding="utf-8").read()
    for block in re.findall(r"^```[^\n]*\n(.*?)^```", text, re.M | re.S):
        check_words(rel, block)
    prose = re.sub(r"^```[^\n]*\n.*?^```", "", text, flags=re.M | re.S)
    for span in re.findall(r"`([^`\n]+)`", prose):
        check_words(rel, span)
    for uri in re.findall(r"\]\(([^)\s]+)\)", prose):
        if "://" not in uri and not uri.startswith("#"):
            check_path(rel, uri.split("#")[0])


# --- 3. Documentation/messages.rst against the shipped modules' sources ---

# The modules a user installs, by their Kbuild names; not the KUnit ones.
MSG_MODULES = ("flushpol", "flushpol_adaptive", "flushpol_smmuv3",
               "flushpol_smmuv2", "flushpol_qcom")
MSG_DIRS = ("core", "policy", "backends")
MSG_DOC = "Documentation/messages.rst"
# The journal's names for the kernel's log levels (journalctl -p).
MSG_LEVELS = {"emerg": "emerg", "alert": "alert", "crit": "crit",
              "err": "err", "warn": "warning", "warning": "warning",
              "notice": "notice", "info": "info", "debug": "debug",
              "dbg": "debug", "devel": "debug"}
# The calls that print to the kernel log, and the argument that is their
# format: pr_*(fmt, ...), dev_*(dev, fmt, ...), WARN(cond, fmt, ...).
MSG_CALL = re.compile(
    r"\b(?:(?P<pr>pr)|(?P<dev>dev|pci|netdev))_"
    r"(?P<level>emerg|alert|crit|err|warn|warning|notice|info|debug|dbg|devel)"
    r"(?P<limit>_ratelimited|_once)?\s*\("
    r"|\b(?P<probe>dev_err_probe)\s*\("
    r"|\b(?P<warn>WARN|WARN_ONCE|WARN_RATELIMIT)\s*\("
    r"|\b(?P<other>printk|pr_cont|dev_printk|printk_ratelimited)\s*\(")
# A printf conversion, %p's extensions included (vsprintf skips every
# letter and digit after %p).
MSG_CONV = re.compile(r"%(?:[-+ #0]*(?:\*|\d+)?(?:\.(?:\*|\d+))?"
                      r"(?:hh|h|ll|l|L|q|j|z|Z|t)?(?:p[A-Za-z0-9]*|[diouxXcsaAeEfgG]))")
# What a dev_*() print puts before its format: "<driver> <device>: ".
MSG_DEV_PREFIX = r"\S+ \S+: "
MSG_FIELDS = ("level", "when", "meaning", "action")


def c_mask(src):
    """@src with comments blanked (newlines kept), and the same with
    string and character literals' contents blanked too: calls and
    parentheses are looked for in the second, literals read from the
    first."""
    code, masked = [], []
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
            blank = re.sub(r"[^\n]", " ", src[i:j])
            code.append(blank)
            masked.append(blank)
            i = j
        elif src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            code.append(" " * (j - i))
            masked.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and src[j] != c:
                j += 2 if src[j] == "\\" else 1
            j += 1
            code.append(src[i:j])
            masked.append(c + "x" * (j - i - 2) + c)
            i = j
        else:
            code.append(c)
            masked.append(c)
            i += 1
    return "".join(code), "".join(masked)


def c_unescape(body):
    esc = {"n": "\n", "t": "\t", "\\": "\\", '"': '"', "'": "'"}
    return re.sub(r"\\(.)", lambda m: esc.get(m.group(1), m.group(0)), body)


def c_literals(code, i):
    """The adjacent string literals at @code[@i] ("a" "b" is "ab"), and
    the index after them."""
    out = []
    while i < len(code) and code[i] == '"':
        j = i + 1
        while code[j] != '"':
            j += 2 if code[j] == "\\" else 1
        out.append(c_unescape(code[i + 1:j]))
        i = j + 1
        while i < len(code) and code[i].isspace():
            i += 1
    return "".join(out), i


def c_prefix(rel, code, macro, module):
    """What #define pr_fmt(fmt) (or dev_fmt) puts before each format."""
    m = re.search(r"^\s*#\s*define\s+%s\s*\(\s*(\w+)\s*\)(.*)$" % macro, code, re.M)
    if not m:
        return ""
    arg, body = m.group(1), m.group(2).strip()
    body = body.replace("KBUILD_MODNAME", f'"{module}"')
    prefix, end = c_literals(body, 0)
    if body[end:].strip() != arg:
        errors.append(f"{rel}: {macro} is not \"prefix\" {arg}: docs-check cannot read it")
    return prefix


def kbuild_modules():
    """{source file: module} for MSG_MODULES, from Kbuild's <module>-y."""
    text = open(os.path.join(TOP, "Kbuild")).read().replace("\\\n", " ")
    owner = {}
    for m in re.finditer(r"^(\w+)-y\s*:?\+?=(.*)$", text, re.M):
        if m.group(1) in MSG_MODULES:
            for obj in m.group(2).split():
                owner[obj[:-2] + ".c"] = m.group(1)
    for mod in MSG_MODULES:
        if mod not in owner.values():
            errors.append(f"Kbuild: no {mod}-y: docs-check cannot tell the "
                          f"sources of {mod}")
    return owner


class Site:
    def __init__(self, rel, line, call, module, level, limit, regex, fmt):
        self.rel, self.line, self.call = rel, line, call
        self.module, self.level, self.limit = module, level, limit
        self.regex, self.fmt = regex, fmt

    def __str__(self):
        fmt = self.fmt.replace("\n", "\\n")
        return f"{self.rel}:{self.line}: {self.call}(\"{fmt}\")"


def msg_regex(prefix, fmt):
    """A message as the journal shows it, each conversion a wildcard."""
    text = re.sub(r"\s+", " ", prefix + fmt.rstrip("\n")).strip()
    parts = MSG_CONV.split(text.replace("%%", "\0"))
    return re.compile(".*".join(re.escape(p.replace("\0", "%")) for p in parts))


def print_sites():
    """Every print call in the shipped sources, with what it prints."""
    owner = kbuild_modules()
    sites = []
    files = sorted(f for d in MSG_DIRS
                   for f in glob.glob(os.path.join(TOP, d, "**", "*.[ch]"),
                                      recursive=True))
    for path in files:
        rel = os.path.relpath(path, TOP)
        code, masked = c_mask(open(path, encoding="utf-8").read())
        calls = list(MSG_CALL.finditer(masked))
        module = owner.get(rel)
        if rel.endswith(".c") and not module:
            errors.append(f"{rel}: in no module of Kbuild's {', '.join(MSG_MODULES)}: "
                          f"docs-check cannot tell what prints its messages")
            continue
        if calls and rel.endswith(".h"):
            errors.append(f"{rel}:{masked.count(chr(10), 0, calls[0].start()) + 1}: "
                          f"a print in a header takes its includer's pr_fmt: "
                          f"docs-check reads only .c files' prints")
            continue
        pr_prefix = c_prefix(rel, code, "pr_fmt", module)
        dev_prefix = c_prefix(rel, code, "dev_fmt", module)
        for m in calls:
            line = masked.count("\n", 0, m.start()) + 1
            call = m.group(0).rstrip("( \t\n")
            where = f"{rel}:{line}: {call}"
            if m.group("other"):
                errors.append(f"{where}: docs-check knows no level for it: "
                              f"use pr_*() or dev_*()")
                continue
            # The arguments, split at the commas outside parentheses.
            depth, args, start = 0, [], m.end()
            for i in range(m.end(), len(masked)):
                c = masked[i]
                if c in "([{":
                    depth += 1
                elif c in ")]}" and depth:
                    depth -= 1
                elif c in ",)" and not depth:
                    args.append((start, i))
                    start = i + 1
                    if c == ")":
                        break
            index = 0 if m.group("pr") else 2 if m.group("probe") else 1
            if index >= len(args):
                errors.append(f"{where}: no format argument")
                continue
            a, b = args[index]
            first = a + len(code[a:b]) - len(code[a:b].lstrip())
            fmt, end = c_literals(code, first)
            if not fmt or code[end:b].strip():
                errors.append(f"{where}: its format is not a string literal: "
                              f"docs-check cannot catalogue it")
                continue
            if m.group("pr"):
                level, limit = MSG_LEVELS[m.group("level")], m.group("limit") or ""
                regex = msg_regex(pr_prefix, fmt)
            else:
                level = ("err" if m.group("probe") else
                         "warning" if m.group("warn") else MSG_LEVELS[m.group("level")])
                limit = ("_once" if call == "WARN_ONCE" else
                         "_ratelimited" if call == "WARN_RATELIMIT" else
                         m.group("limit") or "")
                regex = msg_regex("", fmt)
                # WARN()'s text goes out as it is (__warn_printk()), with
                # neither pr_fmt nor a device's name.
                if not m.group("warn"):
                    regex = re.compile(MSG_DEV_PREFIX + re.escape(dev_prefix) +
                                       regex.pattern)
            sites.append(Site(rel, line, call, module, level, limit, regex,
                              fmt.rstrip("\n")))
    return sites


class Entry:
    def __init__(self, line, module, text, fields):
        self.line, self.module, self.text, self.fields = line, module, text, fields

    def __str__(self):
        return f"{MSG_DOC}:{self.line}: ``{self.text}``"


def catalogue(tree, source):
    """The entries of messages.rst: each a definition list item whose term
    is one literal, the message; its definition a field list with
    MSG_FIELDS; under a section whose title's first word is its module."""
    entries = []
    for item in tree.traverse(docutils.nodes.definition_list_item):
        term = item.next_node(docutils.nodes.term)
        if not (len(term.children) == 1 and
                isinstance(term.children[0], docutils.nodes.literal)):
            continue
        text = re.sub(r"\s+", " ", term.astext()).strip()
        raw = "``" + term.children[0].astext() + "``"
        line = source[:source.find(raw)].count("\n") + 1 if raw in source else item.line
        # The nearest section whose title starts with a module's name.
        module, section = None, item.parent
        while section is not None and module is None:
            if isinstance(section, docutils.nodes.section):
                words = section.next_node(docutils.nodes.title).astext().split()
                if words and words[0] in MSG_MODULES:
                    module = words[0]
            section = section.parent
        fields = {}
        for field in item.traverse(docutils.nodes.field):
            name = field.next_node(docutils.nodes.field_name).astext().strip().lower()
            fields[name] = field.next_node(docutils.nodes.field_body).astext().strip()
        entries.append(Entry(line, module, text, fields))
    return entries


def check_messages(tree):
    """Every message the shipped modules print has its entry in
    messages.rst, under its module, at its level; and every entry is a
    message one of them prints."""
    if tree is None:
        errors.append(f"{MSG_DOC}: missing or unparsable: the catalogue of messages")
        return 0
    source = open(os.path.join(TOP, MSG_DOC), encoding="utf-8").read()
    entries = catalogue(tree, source)
    sites = print_sites()
    for e in entries:
        if e.module not in MSG_MODULES:
            errors.append(f"{e}: under '{e.module}', which is none of "
                          f"{', '.join(MSG_MODULES)}")
        missing = [f for f in MSG_FIELDS if not e.fields.get(f)]
        if missing:
            errors.append(f"{e}: no :{': :'.join(missing)}: field")
    used = set()
    for s in sites:
        found = [e for e in entries if s.regex.fullmatch(e.text)]
        mine = [e for e in found if e.module == s.module]
        if not found:
            errors.append(f"{s}: no entry in {MSG_DOC}")
        elif not mine:
            errors.append(f"{s}: catalogued under {found[0].module} ({found[0]}), "
                          f"but {s.module} prints it")
        limit = {"_once": "once", "_ratelimited": "rate-limited"}.get(s.limit)
        right = [e for e in mine
                 if e.fields.get("level", "").split(",")[0].strip() == s.level and
                 (not limit or limit in e.fields.get("level", ""))]
        if mine and not right:
            errors.append(f"{s}: {mine[0]} has level '{mine[0].fields.get('level', '')}', "
                          f"the code prints at '{s.level}{', ' + limit if limit else ''}'")
        used.update(id(e) for e in mine)
    for e in entries:
        if id(e) not in used and e.module in MSG_MODULES:
            errors.append(f"{e}: {e.module} prints no such message "
                          f"(no print call's format matches it)")
    return len(sites)


def main():
    rst = sorted(glob.glob(os.path.join(TOP, "Documentation", "**", "*.rst"),
                           recursive=True))
    if not rst:
        errors.append("Documentation/: no .rst files")
    trees = {}
    for path in rst:
        trees[os.path.relpath(path, TOP)] = check_rst(path)
    check_markdown(os.path.join(TOP, "README.md"))
    check_help()
    nsites = check_messages(trees.get(MSG_DOC))
    for e in errors:
        print(f"docs-check: {e}", file=sys.stderr)
    print(f"docs-check: {len(rst)} .rst files and README.md, {nsites} "
          f"print calls against {MSG_DOC}: {'FAIL' if errors else 'PASS'}")
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
