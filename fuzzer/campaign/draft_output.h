#pragma once

// What an issue draft shows of a repro's run: the lines that show the bug, without the noise a
// maintainer skips (header warnings, repeated lines, caret lines, Python's hints) and without
// this machine's paths.

#include "corpus/finding.h"

#include <optional>
#include <string>
#include <vector>

namespace fuzzer::campaign {

// A text's lines, without their line ends (a "\r" before one too).
std::vector<std::string> TextLines(const std::string &text);

// `text` with this machine's paths made placeholders: `<site-packages>/torch/...`,
// `<inductor-cache>/...`, `<python>/...` (the interpreter's own library), `<tmp>/...` (a
// scratch folder), `~/...` (a home folder).
std::string WithPlaceholders(const std::string &text);

// The last exception a repro's output ends with, as Python printed it: its type and message,
// with the causes Inductor chains into it ("torch._inductor.exc.InductorError:
// LoweringException: AssertionError: ..."); "" when it raised none.
std::string ExceptionLine(const std::string &output);

// The lines of a repro's output that show a bug of `kind` (none: a known issue's match that
// names no finding kind), at most `max_lines`, each once, with placeholders for paths, as the
// kind's row says (corpus::DraftExcerpt):
//  - kCompileError: the compiler's first error line and the note after it;
//  - kException: the raising torch frame and the exception's line;
//  - kComparison: torch.testing's lines of what differs and how far;
//  - kLastLines (a crash, a timeout, ...), or none of the above found: the last lines that are
//    not noise.
std::string OutputThatShowsTheBug(const std::string &output,
                                  std::optional<corpus::FindingKind> kind,
                                  std::size_t max_lines = 12);

} // namespace fuzzer::campaign
