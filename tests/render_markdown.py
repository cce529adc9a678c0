"""Parses Markdown files as GitHub does (CommonMark, markdown-it-py) and prints, per file, its
headings and the info strings of its fenced code blocks, as JSON: tests/issue_draft_test.cpp
checks the drafts' structure through it, not by reading the text by hand."""

import json
import sys

from markdown_it import MarkdownIt

parser = MarkdownIt("commonmark")
result = {}
for path in sys.argv[1:]:
    with open(path, encoding="utf-8") as source:
        tokens = parser.parse(source.read())
    headings, fences = [], []
    for index, token in enumerate(tokens):
        if token.type == "heading_open":
            headings.append(f"{token.tag} {tokens[index + 1].content}")
        elif token.type == "fence":
            fences.append({"info": token.info, "lines": token.content.count("\n")})
    result[path] = {"headings": headings, "fences": fences}
print(json.dumps(result))
