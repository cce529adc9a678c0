#include "fuzzer/campaign/draft_output.h"

#include "corpus/finding_kinds.h"

#include <algorithm>
#include <regex>
#include <set>
#include <sstream>
#include <vector>

namespace fuzzer::campaign {
namespace {

bool Contains(const std::string &line, const char *text) {
  return line.find(text) != std::string::npos;
}

// A line no maintainer reads for the bug: a compiler's context and carets, Python's hints.
bool IsNoise(const std::string &line) {
  static const std::regex caret(R"(^\s*\d*\s*\|?\s*[\^~]+[\^~ ]*$)");
  static const std::regex snippet(R"(^\s*\d+\s*\|.*|^\s+\|.*)");
  static const std::regex included(R"(^(In file included from|\s+from|In instantiation of).*)");
  static const std::regex glog(R"(^[WIEF]\d{4} \d\d:\d\d:\d\d)"); // torch's C++ log lines
  if (line.find_first_not_of(" \t") == std::string::npos)
    return true;
  return std::regex_match(line, caret) || std::regex_match(line, snippet) ||
         std::regex_match(line, included) || Contains(line, "required from") ||
         Contains(line, "In member function") || Contains(line, "In function ") ||
         Contains(line, "In instantiation of") || Contains(line, " warning: ") ||
         Contains(line, "Set TORCHDYNAMO_VERBOSE") || Contains(line, "TORCH_LOGS=") ||
         Contains(line, "You can suppress this exception") ||
         Contains(line, "torch._dynamo.config.suppress_errors") ||
         Contains(line, "Traceback (most recent call last)") ||
         Contains(line, "The above exception was the direct cause") ||
         Contains(line, "During handling of the above exception") ||
         std::regex_search(line, glog) || Contains(line, "Warning: ") ||
         Contains(line, "_warn_once(") || Contains(line, "SOLUTION: ") ||
         Contains(line, "_FLEX_ATTENTION_DISABLE_COMPILE_DEBUG") ||
         Contains(line, "If you want to debug your score_mod") ||
         Contains(line, "This will allow you to use print statements");
}

std::string Trimmed(const std::string &line) {
  const auto first = line.find_first_not_of(" \t");
  const auto last = line.find_last_not_of(" \t");
  return first == std::string::npos ? "" : line.substr(first, last - first + 1);
}

// The exception's own line: "TypeName: message" at the start of a line.
bool IsExceptionLine(const std::string &line) {
  static const std::regex exception(
      R"(^[A-Za-z_][\w.]*(Error|Exception|Failure|Interrupt|Warning)\b(:.*)?$)");
  return std::regex_match(line, exception);
}

// Where a LoweringException's message ends and its dump of the lowering's target and
// arguments begins, or Dynamo's "Found from"/"from user code" frames.
bool IsArgumentDump(const std::string &line) {
  static const std::regex dump(
      R"(^\s+(target|args\[\d+\]|kwargs): .*|^(Found from|from user code)\s*:.*)");
  return std::regex_match(line, dump);
}

class Picked {
public:
  explicit Picked(std::size_t max_lines) : max_lines_(max_lines) {}
  void Add(const std::string &line) {
    const std::string shown = WithPlaceholders(line.substr(0, 400));
    if (lines_.size() < max_lines_ && seen_.insert(Trimmed(shown)).second)
      lines_.push_back(shown);
  }
  bool Empty() const { return lines_.empty(); }
  std::string Text() const {
    std::string text;
    for (const auto &line : lines_)
      text += line + "\n";
    return text;
  }

private:
  std::size_t max_lines_;
  std::vector<std::string> lines_;
  std::set<std::string> seen_;
};

std::string CompileError(const std::vector<std::string> &lines, std::size_t max_lines) {
  Picked picked(max_lines);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (!Contains(lines[i], " error: ") && !lines[i].starts_with("error: "))
      continue;
    picked.Add(lines[i]);
    // The note may follow the error's carets and a chain of "In file included from" lines.
    for (std::size_t j = i + 1; j < lines.size() && j < i + 30; ++j)
      if (Contains(lines[j], " note: ")) {
        picked.Add(lines[j]);
        break;
      } else if (Contains(lines[j], " error: ")) {
        break;
      }
    break;
  }
  if (picked.Empty())
    return "";
  for (auto line = lines.rbegin(); line != lines.rend(); ++line)
    if (IsExceptionLine(*line)) {
      picked.Add(*line);
      break;
    }
  return picked.Text();
}

// The innermost frame in torch of the last traceback, its source line, and the exception.
std::string Exception(const std::vector<std::string> &lines, std::size_t max_lines) {
  static const std::regex frame(R"re(^\s*File "([^"]+)", line \d+, in .*)re");
  std::size_t exception = lines.size();
  for (std::size_t i = lines.size(); i-- > 0;)
    if (IsExceptionLine(lines[i])) {
      exception = i;
      break;
    }
  if (exception == lines.size())
    return "";
  Picked picked(max_lines);
  for (std::size_t i = exception; i-- > 0;) {
    std::smatch match;
    if (std::regex_match(lines[i], match, frame) &&
        match[1].str().find("/torch/") != std::string::npos) {
      picked.Add(Trimmed(lines[i]));
      if (i + 1 < exception && !std::regex_match(lines[i + 1], frame))
        picked.Add("  " + Trimmed(lines[i + 1]));
      break;
    }
  }
  // The exception's message may run over several lines (until a blank one), but Inductor's
  // dump of the lowering's arguments after it is no part of what went wrong.
  for (std::size_t i = exception; i < lines.size() && !Trimmed(lines[i]).empty(); ++i) {
    if (i > exception && IsArgumentDump(lines[i]))
      break;
    if (!IsNoise(lines[i]))
      picked.Add(lines[i]);
  }
  return picked.Text();
}

std::string WrongResult(const std::vector<std::string> &lines, std::size_t max_lines) {
  Picked picked(max_lines);
  for (const auto &line : lines)
    if (Contains(line, "Mismatched elements") || Contains(line, "Greatest absolute difference") ||
        Contains(line, "Greatest relative difference") || Contains(line, "are not close") ||
        Contains(line, "are not equal") || Contains(line, "MISMATCH") ||
        Contains(line, "The values for attribute") ||
        (IsExceptionLine(line) && Contains(line, "AssertionError")))
      picked.Add(Trimmed(line));
  return picked.Text();
}

std::string LastLines(const std::vector<std::string> &lines, std::size_t max_lines) {
  std::vector<std::string> kept;
  for (auto line = lines.rbegin(); line != lines.rend() && kept.size() < max_lines; ++line)
    if (!IsNoise(*line) && !line->starts_with("print(") && !line->starts_with("inductor config:"))
      kept.push_back(*line);
  std::reverse(kept.begin(), kept.end());
  Picked picked(max_lines);
  for (const auto &line : kept)
    picked.Add(line);
  return picked.Text();
}

} // namespace

std::vector<std::string> TextLines(const std::string &text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    lines.push_back(line);
  }
  return lines;
}

std::string WithPlaceholders(const std::string &text) {
  static const std::vector<std::pair<std::regex, std::string>> rules = {
      {std::regex(R"((/[^\s'"`(),:;]*)?/(site|dist)-packages/)"), "<site-packages>/"},
      {std::regex(R"((/[^\s'"`(),:;]*)?/torchinductor_[^/\s'"`]+/)"), "<inductor-cache>/"},
      {std::regex(R"(/[^\s'"`(),:;]*/(cache|inductor-cache)/([0-9a-z]{2}/))"),
       "<inductor-cache>/$2"},
      {std::regex(R"(/usr/(local/)?lib/python3\.\d+/)"), "<python>/"},
      {std::regex(R"(/tmp/(?:[^\s'"`(),:;/]+/)*)"), "<tmp>/"},
      {std::regex(R"(/(home/[^/\s'"`]+|root)/)"), "~/"},
      // What is left in a traceback is the repro's own file: its name says enough.
      {std::regex(R"re(File "/[^"]*/([^/"]+)")re"), "File \"$1\""},
  };
  std::string result = text;
  for (const auto &[pattern, replacement] : rules)
    result = std::regex_replace(result, pattern, replacement);
  return result;
}

std::string ExceptionLine(const std::string &output) {
  const auto lines = TextLines(output);
  for (auto line = lines.rbegin(); line != lines.rend(); ++line)
    if (IsExceptionLine(*line))
      return WithPlaceholders(line->substr(0, 300));
  return "";
}

std::string OutputThatShowsTheBug(const std::string &output,
                                  std::optional<corpus::FindingKind> kind, std::size_t max_lines) {
  const auto lines = TextLines(output);
  std::string shown;
  switch (kind ? corpus::RowOf(*kind).draft_excerpt : corpus::DraftExcerpt::kLastLines) {
  case corpus::DraftExcerpt::kCompileError:
    // A build that fails inside Inductor prints no compiler error of its own: its traceback.
    shown = CompileError(lines, max_lines);
    if (shown.empty())
      shown = Exception(lines, max_lines);
    break;
  case corpus::DraftExcerpt::kException:
    shown = Exception(lines, max_lines);
    break;
  case corpus::DraftExcerpt::kComparison:
    shown = WrongResult(lines, max_lines);
    break;
  case corpus::DraftExcerpt::kLastLines:
    break;
  }
  return shown.empty() ? LastLines(lines, max_lines) : shown;
}

} // namespace fuzzer::campaign
