#!/usr/bin/env python3
"""Checks the shape rules of the project's own C++ code (src/, include/, tests/, bench/, fuzz/): no
file over 700 lines (the k-d tree's header excepted: one mechanism already split into its parts), and
no function over 100 lines. Prints each offence as FILE:LINE: WHAT and exits 1 when there is any.

Functions are found by their braces, not by a compiler: comments, strings and character literals are
blanked, then every '{' at namespace or class level that follows a parameter list (')' and any of
const, noexcept, override, final, mutable, a trailing return type, or a constructor's initializer
list) opens a function body, which runs to its matching '}'. Lambdas and blocks inside a body count as
part of it; a lambda at namespace level counts as a function of its own.

    scripts/check_code_shape.py [ROOT]          (ROOT: the project, default: this script's parent's parent)
"""
import re
import sys
from pathlib import Path

MAX_FILE_LINES = 700
MAX_FUNCTION_LINES = 100
CODE_FOLDERS = ("src", "include", "tests", "bench", "fuzz")
FILE_EXCEPTIONS = {"include/nodegen/spatial/kdtree.hpp"}
SCOPE_KEYWORDS = re.compile(r"\b(namespace|class|struct|union|enum)\b|\bextern\s+\"C\"")
AFTER_PARAMETERS = {"const", "noexcept", "override", "final", "mutable", "volatile"}


def blank_literals(text):
    """The text with comments, strings and character literals replaced by spaces (newlines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == 'R' and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = text.find(")" + m.group(1) + '"', i)
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'":
            # A digit separator (1'000'000) is not a character literal.
            if c == "'" and i > 0 and text[i - 1].isalnum() and i + 1 < n and text[i + 1].isalnum():
                out.append(" ")
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(" " * (j - i))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def opens_function(statement):
    """Whether a '{' after `statement` (the code since the last ';', '{' or '}' at this level) opens a
    function body."""
    s = statement.strip()
    if not s or SCOPE_KEYWORDS.search(s.split("(")[0]):
        return False
    if s.endswith(")"):
        return True
    words = re.findall(r"[A-Za-z_]\w*|\S", s)
    if words and words[-1] in AFTER_PARAMETERS:
        return True
    # A trailing return type: "-> std::vector<int>" after the parameter list.
    close = s.rfind(")")
    return close >= 0 and "->" in s[close:]


def functions(code):
    """(first line, last line) of each function body at namespace or class level."""
    found = []
    stack = []  # kinds of the open braces: "scope", "function", "init"
    statement_start = 0
    ctor_init = False  # the statement is a constructor's initializer list (") :" seen)
    line_of = lambda pos: code.count("\n", 0, pos) + 1
    starts = []
    for pos, c in enumerate(code):
        if c not in "{};":
            continue
        inside_function = any(k == "function" for k in stack)
        if c == ";":
            if not inside_function and (not stack or stack[-1] != "init"):
                statement_start = pos + 1
                ctor_init = False
            continue
        if c == "{":
            if inside_function:
                stack.append("block")
                continue
            statement = code[statement_start:pos]
            if re.search(r"\)\s*(noexcept\s*)?:(?!:)", statement):
                ctor_init = True
            before = statement.rstrip()
            if ctor_init and (before.endswith(")") or before.endswith("}")):
                kind = "function"
            elif ctor_init:
                kind = "init"  # a member's brace initializer in the list
            elif opens_function(statement):
                kind = "function"
            elif SCOPE_KEYWORDS.search(statement):
                kind = "scope"
            else:
                kind = "init"
            stack.append(kind)
            starts.append(pos)
            if kind != "init":
                statement_start = pos + 1
                ctor_init = False
            continue
        # '}'
        if not stack:
            continue
        kind = stack.pop()
        if kind == "block":
            continue
        start = starts.pop()
        if kind == "function":
            found.append((line_of(start), line_of(pos)))
        if kind != "init":
            statement_start = pos + 1
            ctor_init = False
    return found


def main():
    root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent)
    offences = []
    for folder in CODE_FOLDERS:
        for path in sorted((root / folder).rglob("*")):
            if path.suffix not in (".cpp", ".hpp", ".h", ".cc"):
                continue
            rel = path.relative_to(root).as_posix()
            text = path.read_text(encoding="utf-8", errors="replace")
            lines = text.count("\n")
            if lines > MAX_FILE_LINES and rel not in FILE_EXCEPTIONS:
                offences.append(f"{rel}:1: {lines} lines, above {MAX_FILE_LINES}")
            for first, last in functions(blank_literals(text)):
                length = last - first + 1
                if length > MAX_FUNCTION_LINES:
                    offences.append(f"{rel}:{first}: a function of {length} lines, above {MAX_FUNCTION_LINES}")
    for offence in offences:
        print(offence)
    if offences:
        print(f"check_code_shape: {len(offences)} offence(s)")
        return 1
    print("check_code_shape: every file and function within its limit")
    return 0


if __name__ == "__main__":
    sys.exit(main())
