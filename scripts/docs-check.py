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
        return
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


def main():
    rst = sorted(glob.glob(os.path.join(TOP, "Documentation", "**", "*.rst"),
                           recursive=True))
    if not rst:
        errors.append("Documentation/: no .rst files")
    for path in rst:
        check_rst(path)
    check_markdown(os.path.join(TOP, "README.md"))
    check_help()
    for e in errors:
        print(f"docs-check: {e}", file=sys.stderr)
    print(f"docs-check: {len(rst)} .rst files and README.md: "
          f"{'FAIL' if errors else 'PASS'}")
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
